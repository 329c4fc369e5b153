// What the spill and journal-recovery tests share: a temporary directory,
// whole-file reads and writes, numbered kernels and API calls, and a check
// that a store holds exactly the kernels expected, in order.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace.h"
#include "temp_dir.h"

namespace cuptitrace::testing::spill {

inline constexpr size_t kPerChunk = ChunkedVector<KernelRecord>::kChunkRecords;

using testing::TempDir;

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void writeFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline KernelRecord kernel(Trace& t, uint64_t i) {
  KernelRecord k{};
  k.start = 1000 + 10 * i;
  k.end = k.start + 5;
  k.correlationId = static_cast<uint32_t>(i);
  k.name = t.strings.intern("kernel_" + std::to_string(i % 7));
  k.streamId = static_cast<uint32_t>(i % 3);
  return k;
}

inline ApiRecord api(Trace& t, uint64_t i) {
  ApiRecord a{};
  a.start = 995 + 10 * i;
  a.end = a.start + 3;
  a.correlationId = static_cast<uint32_t>(i);
  a.name = t.strings.intern(i % 2 ? "cudaLaunchKernel" : "cudaMemcpyAsync");
  return a;
}

inline void fillMetadata(Trace& t) {
  t.meta.toolVersion = "test";
  t.meta.hostName = "node7";
  t.meta.pid = 4242;
  t.meta.processName = "app";
  t.meta.commandLine = "./app --steps 3";
  t.meta.startTimestampNs = 1000;
  t.meta.config = {{"CUPTITRACE_SPILL", "always"}};
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-1"});
}

// Every kernel i in [0, n) was added in order; checks the store holds exactly them.
inline void checkKernels(const Trace& t, const std::vector<uint64_t>& expected) {
  const auto& kernels = t.store.records<KernelRecord>();
  REQUIRE(kernels.size() == expected.size());
  size_t i = 0;
  bool inOrder = true;
  kernels.forEach(
      [&](const KernelRecord& k) { inOrder = inOrder && k.correlationId == expected[i++]; });
  CHECK(inOrder);
  // Random access, from the back and scattered.
  bool random = true;
  for (size_t j = expected.size(); j-- > 0;)
    random = random && kernels[j].correlationId == expected[j];
  for (size_t j = 0; j < expected.size(); j += 997) {
    const KernelRecord& k = kernels[j];
    random = random && k.start == 1000 + 10 * expected[j] &&
             t.strings.get(k.name) == "kernel_" + std::to_string(expected[j] % 7);
  }
  CHECK(random);
}

inline std::vector<uint64_t> iota(uint64_t n) {
  std::vector<uint64_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace cuptitrace::testing::spill
