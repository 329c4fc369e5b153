#include "exporters/track_layout.h"

#include <algorithm>
#include <queue>
#include <vector>

namespace cuptitrace {
namespace {

// Start ascending; at equal starts the longer slice first, so that a parent
// always comes before its children (Perfetto keeps the file's order among
// events of equal timestamp, and newer versions also put longer X slices first).
bool inTrackOrder(const Slice& a, const Slice& b) {
  if (a.start != b.start) return a.start < b.start;
  if (a.end != b.end) return a.end > b.end;
  if (a.source != b.source) return a.source < b.source;
  if (a.tie != b.tie) return a.tie < b.tie;
  return a.index < b.index;
}

struct ComesLater {
  bool operator()(const Slice& a, const Slice& b) const { return inTrackOrder(b, a); }
};

}  // namespace

uint64_t layoutTrack(Slice* begin, Slice* end, OverlapPolicy policy) {
  // Records arrive nearly in order (a stream's kernels, a thread's calls in
  // order of completion); checking first skips most sorts.
  if (!std::is_sorted(begin, end, inTrackOrder)) std::sort(begin, end, inTrackOrder);

  // Ends of the slices that enclose the current position, innermost last.
  std::vector<uint64_t> open;
  // Slices whose start was moved, waiting for their turn at the new start.
  // Everything is visited in track order, moved slices included, so a slice
  // is only ever checked against what encloses it at its final start.
  std::priority_queue<Slice, std::vector<Slice>, ComesLater> moved;
  uint64_t changed = 0;
  // Kept slices are written back in place, in their final order; `write`
  // never passes `read`, because a slice is kept at most once.
  Slice* read = begin;
  Slice* write = begin;
  while (read != end || !moved.empty()) {
    Slice s;
    if (!moved.empty() && (read == end || inTrackOrder(moved.top(), *read))) {
      s = moved.top();
      moved.pop();
    } else {
      s = *read++;
    }
    while (!open.empty() && open.back() <= s.start) open.pop_back();
    if (!open.empty() && s.end > open.back()) {
      changed += s.adjusted ? 0 : 1;
      s.adjusted = 1;
      if (policy == OverlapPolicy::MoveStart) {
        // Still ends after the new start (s.end > open.back()), so it never
        // shrinks to nothing; each move strictly advances the start.
        s.start = open.back();
        moved.push(s);
        continue;
      }
      s.end = open.back();
    }
    open.push_back(s.end);
    *write++ = s;
  }
  return changed;
}

}  // namespace cuptitrace
