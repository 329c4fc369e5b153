// `cuptitrace recover`: a process killed while tracing leaves a spill journal;
// the command rebuilds a native trace and JSON from it.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/recover_command.h"
#include "core/journal.h"
#include "exporters/native/native.h"
#include "temp_dir.h"

namespace cuptitrace {
namespace {

using testing::TempDir;

constexpr uint64_t kPerChunk = ChunkedVector<KernelRecord>::kChunkRecords;

// A child traces `kernels` kernels and their launch calls with every chunk
// spilled as it fills, then is killed with SIGKILL, as a job scheduler would.
void traceAndGetKilled(const std::string& journal, uint64_t kernels) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    Trace t;
    t.meta.toolVersion = "test";
    t.meta.pid = static_cast<uint32_t>(::getpid());
    t.meta.hostName = "node7";
    t.meta.processName = "train";
    t.meta.startTimestampNs = 1000;
    t.meta.config = {{"CUPTITRACE_SPILL", "always"}};
    t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-1"});
    enableSpillJournal(t, journal, SpillMode::Always);
    const StringId launch = t.strings.intern("cudaLaunchKernel");
    for (uint64_t i = 0; i < kernels; ++i) {
      KernelRecord k{};
      k.start = 1000 + 10 * i;
      k.end = k.start + 4;
      k.correlationId = static_cast<uint32_t>(i + 1);
      k.name = t.strings.intern(i % 2 ? "_Z4stepPf" : "gemm \"tile\"");
      k.streamId = 7;
      t.store.add(k);
      ApiRecord a{};
      a.start = k.start - 3;
      a.end = k.start - 1;
      a.correlationId = k.correlationId;
      a.name = launch;
      a.threadId = 11;
      t.store.add(a);
    }
    ::raise(SIGKILL);
    ::_exit(3);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
}

TEST_CASE("recover: a killed run's journal becomes a native trace and JSON") {
  TempDir dir;
  const std::string journal = dir.path("train.spill");
  const uint64_t n = 2 * kPerChunk + 300;
  traceAndGetKilled(journal, n);

  std::string out, err;
  REQUIRE(cli::runRecover({journal}, out, err) == 0);
  CHECK(out.find(dir.path("train.json")) != std::string::npos);
  CHECK(out.find(dir.path("train.native")) != std::string::npos);
  CHECK(err.find("kernel 8192") != std::string::npos);
  CHECK(err.find("bytes ignored") == std::string::npos);

  std::ifstream in(dir.path("train.native"), std::ios::binary);
  Trace t;
  std::string error;
  REQUIRE(readNative(in, t, error));
  // Every full chunk reached the disk before the kill; the partial ones did not.
  CHECK(t.store.count(RecordKind::Kernel) == 2 * kPerChunk);
  const uint64_t apiPerChunk = ChunkedVector<ApiRecord>::kChunkRecords;
  CHECK(t.store.count(RecordKind::Api) == n / apiPerChunk * apiPerChunk);
  CHECK(t.counters.at("recovered") == 1);
  CHECK(t.counters.at("recovered.bytes_ignored") == 0);
  CHECK(t.meta.processName == "train");
  REQUIRE(t.devices.size() == 1);
  CHECK(t.strings.get(t.store.records<KernelRecord>()[0].name) == "gemm \"tile\"");

  std::ifstream json(dir.path("train.json"));
  const auto doc = nlohmann::json::parse(json);
  size_t kernels = 0;
  for (const auto& e : doc.at("traceEvents"))
    if (e.value("ph", "") == "X" && e.value("cat", "") == "kernel") ++kernels;
  CHECK(kernels == 2 * kPerChunk);
}

TEST_CASE("recover: a torn journal is read up to the tear, and says so") {
  TempDir dir;
  const std::string journal = dir.path("torn.spill");
  traceAndGetKilled(journal, 3 * kPerChunk);
  // The disk filled up, or the machine went down, in the middle of the last chunk.
  std::ifstream in(journal, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  bytes.resize(bytes.size() - 1000);
  std::ofstream(journal, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));

  std::string out, err;
  REQUIRE(cli::runRecover({journal, "-o", dir.path("out"), "--to", "native"}, out, err) == 0);
  CHECK(err.find("reading stopped at") != std::string::npos);
  CHECK(err.find("bytes ignored") != std::string::npos);
  std::ifstream native(dir.path("out.native"), std::ios::binary);
  Trace t;
  std::string error;
  REQUIRE(readNative(native, t, error));
  CHECK(t.store.count(RecordKind::Kernel) % kPerChunk == 0);
  CHECK(t.store.count(RecordKind::Kernel) >= 2 * kPerChunk);
  CHECK(t.counters.at("recovered.bytes_ignored") > 0);
}

TEST_CASE("recover: bad input and usage") {
  TempDir dir;
  std::string out, err;
  CHECK(cli::runRecover({}, out, err) == 2);
  CHECK(err == "cuptitrace recover: no journal given (see cuptitrace recover --help)\n");
  err.clear();
  CHECK(cli::runRecover({dir.path("none.spill")}, out, err) == 1);
  CHECK(err.find("cannot open") != std::string::npos);
  err.clear();
  CHECK(cli::runRecover({dir.path("x.spill"), "--to", "xml"}, out, err) == 2);
  CHECK(err.find("--to 'xml' is not valid") != std::string::npos);
}

}  // namespace
}  // namespace cuptitrace
