#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "collectors/nvtx_recorder.h"
#include "collectors/nvtx_strings.h"

using namespace cuptitrace;

TEST_CASE("cached interner: the table's ids, keyed by text, not by address") {
  StringTable table;
  CachedInterner interner(table);
  char buffer[32];
  std::strcpy(buffer, "step 1");
  const StringId first = interner.intern(buffer);
  CHECK(first == table.intern("step 1"));
  CHECK(interner.intern(buffer) == first);  // a hit
  std::strcpy(buffer, "step 2");            // the same buffer, new text
  const StringId second = interner.intern(buffer);
  CHECK(second != first);
  CHECK(table.get(second) == "step 2");
  CHECK(interner.intern("") == kNoString);
  CHECK(interner.intern(static_cast<const char*>(nullptr)) == kNoString);
  const std::string longName(1000, 'x');  // past what is cached: still right
  CHECK(interner.intern(longName) == table.intern(longName));
  CHECK(interner.intern(longName) == table.intern(longName));
}

TEST_CASE("cached interner: two interners on one thread, and many threads at once") {
  StringTable table;
  CachedInterner a(table), b(table);
  CHECK(a.intern("same") == b.intern("same"));
  CHECK(a.intern("same") == b.intern("same"));  // alternating keeps both caches right

  // Every thread sees one id per distinct text.
  StringTable shared;
  CachedInterner interner(shared);
  constexpr int kThreads = 8, kNames = 600;  // more names than cache slots: misses and evictions
  std::vector<std::vector<StringId>> ids(kThreads, std::vector<StringId>(kNames));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (int i = 0; i < kNames; ++i) ids[t][i] = interner.intern("range " + std::to_string(i));
    });
  }
  for (auto& th : threads) th.join();
  for (int i = 0; i < kNames; ++i) {
    for (int t = 0; t < kThreads; ++t) CHECK(ids[t][i] == ids[0][i]);
    CHECK(shared.get(ids[0][i]) == "range " + std::to_string(i));
  }
  CHECK(shared.size() == kNames + 1);  // kNoString and each name once
}

TEST_CASE("nvtx: 32 threads push, pop and start/end ranges at once, each keeps its own") {
  Trace trace;
  NvtxRecorder rec;
  CachedInterner interner(trace.strings);
  constexpr uint32_t kThreads = 32, kRanges = 200;
  std::atomic<bool> done{false};
  std::thread drain([&] {
    while (!done.load()) rec.collect(trace.store, false, 0);
  });
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const uint32_t tid = 1000 + t;
      for (uint32_t i = 0; i < kRanges; ++i) {
        NvtxAttributes a;
        a.message = interner.intern("thread " + std::to_string(t));
        rec.push(tid, i * 10, a);
        rec.start(tid, i * 10 + 1, uint64_t(t) * kRanges + i + 1, a);
        rec.end(tid, i * 10 + 2, uint64_t(t) * kRanges + i + 1);
        rec.pop(tid, i * 10 + 5, kNoString);
      }
    });
  }
  for (auto& th : threads) th.join();
  done = true;
  drain.join();
  rec.collect(trace.store, true, 1'000'000);
  std::vector<uint32_t> pushPop(kThreads), startEnd(kThreads);
  bool namesMatch = true;
  trace.store.records<NvtxRecord>().forEach([&](const NvtxRecord& r) {
    const uint32_t t = r.threadId - 1000;
    if (t >= kThreads) return;
    namesMatch = namesMatch && trace.strings.get(r.message) == "thread " + std::to_string(t);
    (r.type == static_cast<uint8_t>(NvtxType::PushPop) ? pushPop : startEnd)[t]++;
    CHECK((r.flags & kNvtxOpen) == 0);
  });
  CHECK(namesMatch);
  for (uint32_t t = 0; t < kThreads; ++t) {
    CHECK(pushPop[t] == kRanges);
    CHECK(startEnd[t] == kRanges);
  }
  rec.publish(trace);
  CHECK(trace.counters["nvtx.unmatched_pops"] == 0);
  CHECK(trace.counters["nvtx.unmatched_ends"] == 0);
}
