// NVTX records waiting on the program's threads for the drain: they call it
// early when many, and count against the store's memory cap.
#include <catch2/catch.hpp>

#include "collectors/nvtx_recorder.h"

using namespace cuptitrace;

TEST_CASE("nvtx memory: a thread's backlog calls the drain every kBacklogRecords records") {
  Trace trace;
  NvtxRecorder rec;
  int calls = 0;
  rec.onBacklog([&] { ++calls; });
  const uint64_t empty = rec.bytesInMemory();
  const size_t n = 2 * NvtxRecorder::kBacklogRecords + 5;
  NvtxAttributes a;
  a.message = trace.strings.intern("step");
  for (size_t i = 0; i < n; ++i) {
    rec.push(1, 10 * i, a);
    rec.pop(1, 10 * i + 5, kNoString);
  }
  CHECK(calls == 2);
  // Marks and start/end ranges wait too.
  for (size_t i = 0; i < NvtxRecorder::kBacklogRecords; ++i) rec.mark(2, i, a);
  CHECK(calls == 3);
  const uint64_t waiting = rec.bytesInMemory();
  CHECK(waiting >= empty + (n + NvtxRecorder::kBacklogRecords) * sizeof(NvtxRecord));
  rec.collect(trace.store, false, 0);
  CHECK(trace.store.count(RecordKind::Nvtx) == n + NvtxRecorder::kBacklogRecords);
  // Moved into the store, they no longer hold memory here.
  CHECK(rec.bytesInMemory() < waiting / 4);
}

TEST_CASE("nvtx memory: what waits in the recorder counts against the store's cap") {
  constexpr uint64_t kChunk = ChunkedVector<KernelRecord>::kChunkBytes;
  constexpr size_t kPerChunk = ChunkedVector<KernelRecord>::kChunkRecords;
  uint64_t elsewhere = 0;
  TraceStore store(3 * kChunk);
  store.addMemoryUser([&] { return elsewhere; });
  KernelRecord k{};
  for (size_t i = 0; i < kPerChunk; ++i) REQUIRE(store.add(k));
  CHECK(store.memoryInUse() == kChunk);
  // With two chunks' worth held elsewhere, a second chunk of records does not fit.
  elsewhere = 2 * kChunk;
  CHECK(store.memoryInUse() == 3 * kChunk);
  CHECK_FALSE(store.add(k));
  CHECK(store.dropped(RecordKind::Kernel) == 1);
  elsewhere = kChunk;
  CHECK(store.add(k));
}
