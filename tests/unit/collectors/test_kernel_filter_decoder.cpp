// Kernel filters in the decoder: kernels left out are not stored, counted as
// filtered, and their launch calls are removed at the end.
#include <catch2/catch.hpp>

#include <cstring>

#include "collectors/cupti_versions.h"
#include "collectors/decoder.h"
#include "activity_fixture.h"

using namespace cuptitrace;
using cuptitrace::testing::asActivity;
using cuptitrace::testing::zeroed;

namespace {


// Kernel names live for the process's life, as CUPTI's do.
const char* const kGemm = "_Z11gemm_kernelIfLi128EEvPKfPfi";  // gemm_kernel<float, 128>(...)
const char* const kAdd = "_Z3addPfPKfi";                      // add(float*, float const*, int)

void kernel(Decoder& d, const char* name, uint32_t correlation) {
  auto k = zeroed<cupti::KernelActivity>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.correlationId = correlation;
  k.start = correlation * 10;
  k.end = correlation * 10 + 5;
  d.decode(asActivity(&k));
}

void launch(Decoder& d, uint32_t correlation, CUpti_ActivityKind kind = CUPTI_ACTIVITY_KIND_RUNTIME) {
  auto a = zeroed<cupti::ApiActivity>();
  a.kind = kind;
  a.cbid = kind == CUPTI_ACTIVITY_KIND_RUNTIME ? static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
                                               : static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  a.correlationId = correlation;
  a.start = correlation * 10 - 2;
  a.end = correlation * 10 - 1;
  d.decode(asActivity(&a));
}

KernelFilter filter(const char* include, const char* exclude) {
  KernelFilter f;
  REQUIRE(f.set(include, exclude));
  return f;
}

std::vector<uint32_t> correlations(const Trace& t) {
  std::vector<uint32_t> out;
  t.store.records<ApiRecord>().forEach([&](const ApiRecord& r) { out.push_back(r.correlationId); });
  return out;
}

}  // namespace

TEST_CASE("kernel filter: excluded kernels are not stored and their launch calls go at the end") {
  Trace trace;
  Decoder d(trace);
  d.setKernelFilter(filter("", "gemm"));
  for (uint32_t c = 1; c <= 10; ++c) {
    launch(d, c);
    kernel(d, c % 2 ? kGemm : kAdd, c);  // odd correlation ids: gemm, left out
  }
  launch(d, 11);  // a call with no kernel: kept
  CHECK(trace.store.records<KernelRecord>().size() == 5);
  trace.store.records<KernelRecord>().forEach(
      [&](const KernelRecord& k) { CHECK(trace.strings.get(k.name) == kAdd); });
  CHECK(trace.store.records<ApiRecord>().size() == 11);  // removed only at the end
  d.removeFilteredLaunches();
  CHECK(correlations(trace) == std::vector<uint32_t>{2, 4, 6, 8, 10, 11});
  d.publishCounters();
  CHECK(trace.counters.at("filtered.kernels") == 5);
  CHECK(trace.counters.at("filtered.launch_calls") == 5);
  // Filtered is not lost: it does not count as dropped.
  CHECK(trace.totalDropped() == 0);
  // A second pass finds nothing more to remove.
  d.removeFilteredLaunches();
  CHECK(trace.store.records<ApiRecord>().size() == 6);
}

TEST_CASE("kernel filter: include keeps only matching kernels; the regex runs once per name") {
  Trace trace;
  Decoder d(trace);
  d.setKernelFilter(filter("<float, 128>", ""));
  // The launch call may come after its kernel in CUPTI's buffers.
  for (uint32_t c = 1; c <= 2000; ++c) kernel(d, c % 4 ? kAdd : kGemm, c);
  for (uint32_t c = 2000; c >= 1; --c) launch(d, c);
  CHECK(trace.store.records<KernelRecord>().size() == 500);
  d.removeFilteredLaunches();
  const auto kept = correlations(trace);
  REQUIRE(kept.size() == 500);
  for (uint32_t c : kept) CHECK(c % 4 == 0);
  d.publishCounters();
  CHECK(trace.counters.at("filtered.kernels") == 1500);
  CHECK(trace.counters.at("filtered.launch_calls") == 1500);
}

TEST_CASE("kernel filter: a launch that also started kept work keeps its call") {
  // One cudaGraphLaunch: three kernels under one correlation id, one left out.
  Trace trace;
  Decoder d(trace);
  d.setKernelFilter(filter("", "gemm"));
  launch(d, 7);
  kernel(d, kAdd, 7);
  kernel(d, kGemm, 7);
  kernel(d, kAdd, 7);
  launch(d, 8);
  kernel(d, kGemm, 8);
  d.removeFilteredLaunches();
  CHECK(trace.store.records<KernelRecord>().size() == 2);
  CHECK(correlations(trace) == std::vector<uint32_t>{7});
  d.publishCounters();
  CHECK(trace.counters.at("filtered.kernels") == 2);
  CHECK(trace.counters.at("filtered.launch_calls") == 1);
}

TEST_CASE("kernel filter: driver launch calls with the kernel's id go too") {
  Trace trace;
  Decoder d(trace);
  d.setKernelFilter(filter("", "add"));
  launch(d, 3, CUPTI_ACTIVITY_KIND_DRIVER);
  kernel(d, kAdd, 3);
  launch(d, 4, CUPTI_ACTIVITY_KIND_DRIVER);
  kernel(d, kGemm, 4);
  d.removeFilteredLaunches();
  CHECK(correlations(trace) == std::vector<uint32_t>{4});
}

TEST_CASE("kernel filter: without a filter nothing is counted or removed") {
  Trace trace;
  Decoder d(trace);
  launch(d, 1);
  kernel(d, kGemm, 1);
  d.removeFilteredLaunches();
  d.publishCounters();
  CHECK(trace.store.records<KernelRecord>().size() == 1);
  CHECK(trace.store.records<ApiRecord>().size() == 1);
  CHECK(trace.counters.count("filtered.kernels") == 0);
}
