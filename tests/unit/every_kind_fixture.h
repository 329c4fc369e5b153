// A trace with a record of every kind, for the tests of the writers that
// cut tables into pieces: launches from three threads of names that need
// quoting, hold unicode or invalid UTF-8, some kernels without an end, some
// in graphs, NVTX ranges, C library calls, allocations, unified memory,
// external ids, GPU metric samples, OpenACC events and the sample trace's
// own records.
#pragma once

#include <cstdint>

#include "core/gpu_metrics.h"
#include "core/trace.h"
#include "memory_fixture.h"
#include "openacc_fixture.h"
#include "trace_fixture.h"

namespace cuptitrace::testing {

// `launches` launches, their times `shift` ns after the sample trace's start.
inline void fillEveryKind(Trace& t, uint32_t launches, uint64_t shift = 0) {
  fillSampleTrace(t);
  openAccTrace(t);
  const uint64_t b = t.meta.baseTimestampNs + shift;
  const char* names[] = {"_Z1av", "kernel \"q\", \xC3\xA9\xE2\x9C\x93", " padded ", "bad \xFF utf8\nline"};
  for (uint32_t i = 0; i < launches; ++i) {
    const uint64_t at = b + 10'000 + i * 1000ull;
    addApi(t, at, at + 300, 100 + i, 4242 + i % 3, i % 2 ? ApiDomain::Driver : ApiDomain::Runtime,
           i % 5 ? "cudaLaunchKernel" : "cuLaunchKernel");
    addKernel(t, at + 400, i % 9 ? at + 900 : 0, 100 + i, 7 + i % 3, names[i % 4]);
    if (i % 7 == 0) addNvtx(t, NvtxType::PushPop, at, at + 950, names[(i / 7) % 4], 4242);
    if (i % 11 == 0) addGraphKernel(t, at + 400, at + 900, 9, i, 100 + i);
    if (i % 13 == 0) addApi(t, at, at + 50, "read", 0, ApiDomain::Osrt);
    if (i % 17 == 0) addAllocation(t, at, 0x7f00 + i, 4096, 0, MemoryKind::Device, 100 + i);
    if (i % 19 == 0) addUvm(t, i % 2 ? UvmKind::BytesHtoD : UvmKind::GpuPageFault, at, at + 10, 4096, 0);
    if (i % 23 == 0) {
      ExternalIdRecord e{};
      e.externalId = i;
      e.correlationId = 100 + i;
      e.externalKind = static_cast<uint8_t>(ExternalKind::Id);
      t.store.add(e);
    }
  }
  const StringId set =
      t.strings.intern(encodeGpuMetricSet({describeGpuMetric("gr__cycles_active.avg.pct_of_peak_sustained_elapsed")}));
  for (uint32_t i = 0; i < 300; ++i) {
    GpuMetricRecord r{};
    r.start = b + i * 100'000ull;
    r.end = r.start + 100'000;
    r.metricSet = set;
    r.values[0] = static_cast<float>(i % 100) / 3;
    t.store.add(r);
  }
}

}  // namespace cuptitrace::testing
