// The .pftrace tests' common step: export a trace with writePerfettoProto
// and read it back with decodePerfetto (pftrace_decoder.h), keeping the
// exporter's own counts next to what was decoded.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/trace.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "timeline/track_layout.h"
#include "pftrace_decoder.h"
#include "trace_fixture.h"

namespace cuptitrace::testing::pftrace {

namespace f = perfetto::f;
using perfetto::Arg;
using perfetto::Args;
using perfetto::Event;
using perfetto::SliceOut;
using perfetto::TrackInfo;

inline constexpr uint32_t kHostPid = kSamplePid;
inline constexpr uint32_t kGpuPid = gpuProcessId(kHostPid, 0);

struct Decoded : perfetto::Decoded {
  PerfettoExportStats stats;

  SliceOut sliceByCorrelation(const std::string& category, uint64_t correlation) const {
    std::vector<SliceOut> found;
    for (const SliceOut& s : slicesOf(category)) {
      const auto it = s.begin.args.find("correlation");
      if (it != s.begin.args.end() && it->second.u == correlation) found.push_back(s);
    }
    REQUIRE(found.size() == 1);
    return found[0];
  }
  // The index in `events` of a slice's begin.
  size_t indexOf(const SliceOut& s) const {
    for (size_t i = 0; i < events.size(); ++i)
      if (events[i].packet == s.begin.packet) return i;
    FAIL("no such event");
    return 0;
  }
};

inline Decoded decode(std::string bytes, PerfettoExportStats stats = {}) {
  Decoded d;
  static_cast<perfetto::Decoded&>(d) = perfetto::decodePerfetto(std::move(bytes));
  d.stats = stats;
  return d;
}

inline Decoded exportTrace(const Trace& trace) {
  std::ostringstream out;
  const PerfettoExportStats stats = writePerfettoProto(trace, out);
  Decoded d = decode(out.str(), stats);
  CHECK(d.stats.bytes == d.bytes.size());
  return d;
}

inline Decoded exportSample() {
  Trace t;
  fillSampleTrace(t);
  return exportTrace(t);
}

inline std::string problems(const Decoded& d) { return d.problemText(); }

}  // namespace cuptitrace::testing::pftrace
