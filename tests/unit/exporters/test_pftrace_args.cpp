// What the .pftrace's slices carry: names exactly as given (hostile ones,
// invalid UTF-8 replaced) and the arguments of each record kind.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "core/demangle.h"
#include "core/trace.h"
#include "pftrace_readback.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::pftrace;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::addUsualAndUnusualLaunch;
using cuptitrace::testing::initTrace;
using cuptitrace::testing::kHostileKernelName;
using cuptitrace::testing::kUtf8Message;
using cuptitrace::testing::longTemplateName;

TEST_CASE("pftrace: hostile names survive exactly", "[pftrace]") {
  const Decoded d = exportSample();
  INFO(problems(d));
  CHECK(d.problems.empty());
  const SliceOut k1 = d.sliceByCorrelation("kernel", 11);
  CHECK(k1.begin.name == demangle(kHostileKernelName));
  CHECK_FALSE(k1.begin.args.count("mangled_name"));  // the Chrome JSON's only
  const SliceOut k2 = d.sliceByCorrelation("kernel", 12);
  CHECK(k2.begin.name == longTemplateName());
  CHECK(d.sliceByCorrelation("kernel", 13).begin.name == "add(float*, float*, float*, int)");
  const auto utf8 = d.slicesNamed(kUtf8Message);
  REQUIRE(utf8.size() == 1);
  CHECK(utf8[0].begin.args.at("domain").s == "my domain");
}

TEST_CASE("pftrace: invalid UTF-8 becomes U+FFFD, as in the JSON", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 10, b + 20, 0, 7, "bad\xFF\xFE name\xC3");
  addNvtx(t, NvtxType::PushPop, b + 5, b + 30, "cut \xE2\x82");
  t.threadNames[kHostPid] = "thread \xC0\xAF";
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  const std::string r = "\xEF\xBF\xBD";
  CHECK(d.slicesOf("kernel").at(0).begin.name == "bad" + r + r + " name" + r);
  CHECK(d.slicesOf("nvtx").at(0).begin.name == "cut " + r);
  CHECK(d.trackNamed(kHostPid, "thread " + r + r) != nullptr);
}

TEST_CASE("pftrace: arguments of kernels, copies, sets, syncs, calls and overhead", "[pftrace]") {
  const Decoded d = exportSample();
  const Args k = d.sliceByCorrelation("kernel", 13).begin.args;
  CHECK(k.at("grid").s == "[128,1,1]");
  CHECK(k.at("block").s == "[256,1,1]");
  CHECK(k.at("registers").u == 32);
  CHECK(k.at("static_smem").kind == Arg::Int);
  CHECK(k.at("static_smem").i == 1024);
  CHECK(k.at("dynamic_smem").i == 0);
  // Known from the track: the GPU process and the stream.
  CHECK_FALSE(k.count("device"));
  CHECK_FALSE(k.count("context"));
  CHECK_FALSE(k.count("stream"));
  CHECK_FALSE(k.count("launch_type"));  // Regular
  CHECK_FALSE(k.count("graph_id"));
  CHECK_FALSE(k.count("clamped_ns"));

  const SliceOut h2d = d.sliceByCorrelation("gpu_memcpy", 14);
  CHECK(h2d.begin.name == "Memcpy HtoD (Pinned -> Device)");
  CHECK(h2d.begin.args.at("bytes").u == 1 << 20);
  CHECK(h2d.begin.args.at("copy_kind").s == "HtoD");
  CHECK(h2d.begin.args.at("src_kind").s == "Pinned");
  CHECK(h2d.begin.args.at("dst_kind").s == "Device");
  CHECK(h2d.begin.args.at("async").b);
  CHECK(h2d.begin.args.at("bandwidth_GBps").d == Approx(104.8576));
  CHECK_FALSE(h2d.begin.args.count("stream"));
  CHECK(h2d.end - h2d.begin.ts == 10000);
  CHECK(d.sliceByCorrelation("gpu_memcpy", 16).begin.name == "Memcpy DtoH (Device -> Pageable)");
  CHECK_FALSE(d.sliceByCorrelation("gpu_memcpy", 16).begin.args.at("async").b);

  const SliceOut set = d.sliceByCorrelation("gpu_memset", 15);
  CHECK(set.begin.name == "Memset (Device)");
  CHECK(set.begin.args.at("memory_kind").s == "Device");
  CHECK(set.begin.args.at("value").u == 0);
  // Inside the copy on stream 9: concurrent work, on the stream's second lane.
  CHECK(set.depth == 0);
  const uint64_t stream9 = d.sliceByCorrelation("gpu_memcpy", 14).begin.track;
  CHECK(d.nameOf(set.begin.track) == d.nameOf(stream9) + " \u00b72");
  CHECK(d.track(set.begin.track).parent == stream9);

  const SliceOut sync = d.slicesOf("cuda_sync").at(0);
  CHECK(sync.begin.name == "StreamSynchronize");
  CHECK(sync.begin.args.at("stream").u == 7);
  CHECK_FALSE(sync.begin.args.count("context"));  // the track's
  CHECK_FALSE(sync.begin.args.count("event"));

  const SliceOut driver = d.sliceByCorrelation("cuda_driver", 11);
  CHECK(driver.begin.name == "cuLaunchKernel");
  CHECK(driver.begin.args.size() == 1);  // correlation: success, no cbid, domain = category
  CHECK(driver.depth == 3);              // in the runtime call, in two NVTX ranges

  const SliceOut overhead = d.slicesOf("overhead").at(0);
  CHECK(overhead.begin.name == "CUPTI buffer flush");
  CHECK(overhead.begin.args.at("thread").u == 4242);
  CHECK_FALSE(overhead.begin.args.count("device"));

  // The trace's own description, on the host process.
  const Event& meta = d.instants.at(0);
  CHECK(meta.name == "cuptitrace");
  CHECK(meta.track == d.processTrack(kHostPid)->uuid);
  CHECK(meta.ts == d.clockReference);
  CHECK(meta.args.at("tool_version").s == "test");
  CHECK(meta.args.at("clock").s == "cupti");
  CHECK(meta.args.at("realtime_offset_ns").i == 0);
  // What the layout did: after the events, at the last one's time.
  REQUIRE(d.layouts.size() == 1);
  CHECK(d.layouts[0].track == meta.track);
  CHECK(d.layouts[0].args.at("flows").u == 6);
  uint64_t last = 0;
  for (const Event& e : d.events)
    if (e.name != "cuptitrace timeline") last = std::max(last, e.ts);
  CHECK(d.layouts[0].ts == last);
  CHECK(meta.args.at("dropped_records").u == 0);
  CHECK(meta.args.at("counters.dropped.cupti").u == 0);
  CHECK_FALSE(meta.args.count("host"));  // a merged file's only
}

TEST_CASE("pftrace: arguments only written when they differ from the usual", "[pftrace]") {
  Trace t;
  initTrace(t);
  addUsualAndUnusualLaunch(t);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK_FALSE(d.sliceByCorrelation("cuda_runtime", 1).begin.args.count("return_value"));
  CHECK(d.sliceByCorrelation("cuda_runtime", 2).begin.args.at("return_value").u == 719);
  const Args second = d.sliceByCorrelation("kernel", 2).begin.args;
  CHECK(second.at("launch_type").s == "CooperativeSingle");
  CHECK(second.at("device_launched").b);
  CHECK(second.at("graph_id").u == 3);
  CHECK(second.at("graph_node_id").u == 44);
}
