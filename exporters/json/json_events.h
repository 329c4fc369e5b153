// The Chrome JSON file being written: the text not yet handed to the stream,
// the events written so far, and where one trace's events go in a file that
// holds several (cuptitrace merge).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>

#include "exporters/json/chrome_json.h"
#include "core/json_text.h"

namespace cuptitrace {

// Bytes gathered before one write to the stream.
inline constexpr size_t kJsonFlushBytes = size_t{1} << 20;

class JsonEvents {
 public:
  explicit JsonEvents(std::ostream& out) : out_(out) { b.reserve(kJsonFlushBytes + (64 << 10)); }

  // The opening brace of an event, after the comma and line end that part it
  // from the one before.
  void begin() {
    if (stats.events != 0) b.lit(",\n");
    b.put('{');
  }
  // Its closing brace; the text goes to the stream once there is enough.
  void end() {
    b.put('}');
    ++stats.events;
    flushIfFull();
  }
  void flushIfFull() {
    if (b.size() >= kJsonFlushBytes) flush();
  }
  void flush() {
    out_.write(b.view().data(), static_cast<std::streamsize>(b.size()));
    b.clear();
  }

  // Text made elsewhere (events encoded on another thread, each with the
  // comma before it), after the text gathered so far.
  void write(const char* text, size_t size) {
    flush();
    out_.write(text, static_cast<std::streamsize>(size));
  }

  JsonText b;             // the text not yet written to the stream
  JsonExportStats stats;  // of the whole file

 private:
  std::ostream& out_;
};

// Where one trace's events go in a file that holds several: its base on its
// own clock, and the ids before its own.
struct JsonPlacement {
  bool merged = false;
  uint64_t base = 0;       // on the trace's clock: times are written relative to it
  uint64_t flowBase = 0;   // added to every flow id (its correlation ids)
  // At least the number of v1 ("s"/"f") arrows in the whole file, added to
  // every bind_id as well: Perfetto numbers v1 arrows 0, 1, 2, ... in the id
  // space of bind_ids (json_flows.h), so bind_ids start above them.
  uint64_t v1Flows = 0;
  uint64_t asyncBase = 0;  // added to every NVTX async id
  uint64_t sortBase = 0;   // added to every process_sort_index
};

}  // namespace cuptitrace
