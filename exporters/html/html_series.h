// Long series made short for the HTML report: a chart a few thousand pixels
// wide cannot show more points than that, and the file must stay small.
// Points are kept as they come while there are at most `limit`; past that the
// span [from, to] is cut into limit / 2 buckets of equal time and each keeps
// its lowest and its highest point, in time order, so the peaks and dips a
// chart of that width would draw survive. Memory: at most `limit` points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cuptitrace::html {

struct SeriesPoint {
  uint64_t t;
  double v;
};

class SeriesReducer {
 public:
  SeriesReducer(uint64_t from, uint64_t to, size_t limit);
  void add(uint64_t t, double v);
  // The points kept, in time order.
  std::vector<SeriesPoint> points() const;
  uint64_t added() const { return added_; }

 private:
  struct Bucket {
    SeriesPoint lo, hi;
    bool any = false;
  };
  void toBuckets();
  void addToBucket(const SeriesPoint& p);

  uint64_t from_, to_;
  size_t limit_;
  uint64_t added_ = 0;
  std::vector<SeriesPoint> raw_;  // while at most limit_ points came
  std::vector<Bucket> buckets_;   // after
};

}  // namespace cuptitrace::html
