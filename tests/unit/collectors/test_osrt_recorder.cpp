#include <catch2/catch.hpp>

#include <atomic>
#include <cerrno>
#include <map>
#include <thread>
#include <vector>

#include "collectors/osrt_recorder.h"
#include "collectors/osrt_state.h"
#include "preload/osrt_gate.h"

using namespace cuptitrace;

namespace {

std::vector<ApiRecord> all(const TraceStore& store) {
  std::vector<ApiRecord> out;
  store.records<ApiRecord>().forEach([&](const ApiRecord& r) { out.push_back(r); });
  return out;
}

// A clock the tests move by hand.
std::atomic<uint64_t> gFakeNow{1000};
uint64_t fakeClock() { return gFakeNow.fetch_add(10); }

}  // namespace

TEST_CASE("osrt: calls as long as the threshold are kept, shorter ones counted") {
  Trace trace;
  OsrtRecorder rec;
  rec.internNames(trace.strings);
  rec.setThreshold(1000);
  rec.record(OsrtCall::Read, 7, 100, 1100, 0);        // exactly the threshold: kept
  rec.record(OsrtCall::Read, 7, 100, 1099, 0);        // 999 ns: not kept
  rec.record(OsrtCall::Nanosleep, 7, 2000, 9000, 4);  // kept, failed with errno 4
  rec.record(OsrtCall::Write, 7, 5000, 4000, 0);      // end before start: not kept
  rec.collect(trace.store);
  const auto records = all(trace.store);
  REQUIRE(records.size() == 2);
  CHECK(trace.strings.get(records[0].name) == "read");
  CHECK(records[0].start == 100);
  CHECK(records[0].end == 1100);
  CHECK(records[0].threadId == 7);
  CHECK(records[0].correlationId == 0);
  CHECK(records[0].domain == static_cast<uint8_t>(ApiDomain::Osrt));
  CHECK(records[0].cbid == static_cast<uint32_t>(OsrtCall::Read));
  CHECK(records[0].returnValue == 0);
  CHECK(trace.strings.get(records[1].name) == "nanosleep");
  CHECK(records[1].returnValue == 4);
  rec.publish(trace);
  CHECK(trace.counters["osrt.recorded"] == 2);
  CHECK(trace.counters["osrt.below_threshold"] == 2);
  CHECK(trace.counters["dropped.osrt"] == 0);
  CHECK(std::string(apiDomainName(records[0].domain)) == "osrt");
}

TEST_CASE("osrt: every call has a name, and names are interned once up front") {
  Trace trace;
  OsrtRecorder rec;
  rec.internNames(trace.strings);
  const size_t interned = trace.strings.size();
  for (size_t i = 0; i < kOsrtCallCount; ++i) {
    const std::string name = osrtCallName(static_cast<OsrtCall>(i));
    CHECK(!name.empty());
    CHECK(name != "unknown");
    rec.record(static_cast<OsrtCall>(i), 1, 0, 5000, 0);
  }
  CHECK(trace.strings.size() == interned);  // recording interned nothing
  CHECK(std::string(osrtCallName(OsrtCall::MutexLock)) == "pthread_mutex_lock");
  rec.collect(trace.store);
  CHECK(trace.store.records<ApiRecord>().size() == kOsrtCallCount);
}

TEST_CASE("osrt: many threads record at once while the drain thread collects") {
  Trace trace;
  OsrtRecorder rec;
  rec.internNames(trace.strings);
  constexpr int kThreads = 8, kCalls = 1000;  // several chunks per thread
  std::atomic<bool> done{false};
  std::thread drain([&] {
    while (!done.load()) rec.collect(trace.store);
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&rec, t] {
      for (int i = 0; i < kCalls; ++i)
        rec.record(OsrtCall::Poll, 100 + t, uint64_t(i) * 10, uint64_t(i) * 10 + 5, 0);
    });
  }
  for (auto& t : threads) t.join();
  done = true;
  drain.join();
  rec.collect(trace.store);  // what the drain thread had not reached
  std::map<uint32_t, std::vector<uint64_t>> starts;
  for (const auto& r : all(trace.store)) starts[r.threadId].push_back(r.start);
  REQUIRE(starts.size() == kThreads);
  for (const auto& [tid, s] : starts) {
    INFO("thread " << tid);
    REQUIRE(s.size() == kCalls);
    for (int i = 0; i < kCalls; ++i) CHECK(s[i] == uint64_t(i) * 10);  // in order, none twice
  }
}

TEST_CASE("osrt: the calls of a thread found to be CUPTI's are left out") {
  Trace trace;
  OsrtRecorder rec;
  rec.internNames(trace.strings);
  std::thread other([&] {
    rec.record(OsrtCall::CondWait, 55, 0, 100, 0);
    rec.dropCallingThread(55);
    rec.record(OsrtCall::CondWait, 55, 200, 300, 0);
  });
  other.join();
  rec.record(OsrtCall::Read, 56, 0, 100, 0);
  rec.collect(trace.store);
  const auto records = all(trace.store);
  REQUIRE(records.size() == 1);
  CHECK(records[0].threadId == 56);
  rec.publish(trace);
  CHECK(trace.counters["osrt.tracer_thread_calls"] == 2);
}

TEST_CASE("osrt: records of threads that ended are collected, and their counts kept") {
  Trace trace;
  OsrtRecorder rec;
  rec.internNames(trace.strings);
  rec.setThreshold(50);
  for (int t = 0; t < 4; ++t) {
    std::thread([&rec, t] {
      for (int i = 0; i < 300; ++i) rec.record(OsrtCall::Fgets, 10 + t, 0, 100, 0);
      rec.record(OsrtCall::Fgets, 10 + t, 0, 10, 0);  // short
    }).join();
  }
  rec.collect(trace.store);
  rec.collect(trace.store);  // a second pass finds nothing new
  CHECK(trace.store.records<ApiRecord>().size() == 4 * 300);
  rec.publish(trace);
  CHECK(trace.counters["osrt.below_threshold"] == 4);
  CHECK(trace.counters["osrt.recorded"] == 4 * 300);
}

TEST_CASE("osrt: a call number this build does not know is counted, not stored") {
  Trace trace;
  OsrtRecorder rec;
  rec.internNames(trace.strings);
  rec.record(static_cast<OsrtCall>(kOsrtCallCount + 3), 1, 100, 5000, 0);
  rec.record(OsrtCall::Read, 1, 100, 5000, 0);
  rec.collect(trace.store);
  rec.publish(trace);
  REQUIRE(all(trace.store).size() == 1);
  CHECK(trace.strings.get(all(trace.store)[0].name) == "read");
  CHECK(trace.counters["dropped.osrt_unknown_call"] == 1);
}

// ---- osrt_state: which calls are recorded --------------------------------------

// The tracer's side (osrt_state) connected to the preload library's gate
// (preload/osrt_gate.cpp, linked in here), as it is once the tracer loads.
namespace wrap = cuptitrace::preload;
namespace {
uint16_t callId(OsrtCall call) { return static_cast<uint16_t>(call); }
}  // namespace

TEST_CASE("osrt state: without the preload library nothing is armed, scopes still nest") {
  osrt::connect(nullptr);
  CHECK_FALSE(osrt::connectPreloaded());  // the gate is linked in, not preloaded: its wrappers are not reached
  CHECK_FALSE(osrt::connected());
  OsrtRecorder rec;
  osrt::arm(&rec, fakeClock);
  CHECK_FALSE(wrap::armed());
  {
    const osrt::TracerScope ours;
    std::thread([] {
      osrt::markTracerThread();
      CHECK(osrt::isTracerThread());
    }).join();
  }
  CHECK_FALSE(osrt::isTracerThread());
}

TEST_CASE("osrt state: only armed, outermost calls of program threads are recorded") {
  Trace trace;
  OsrtRecorder rec;
  rec.internNames(trace.strings);
  uint64_t start = 0;

  osrt::connect(cuptitrace_osrt_v1_attach());
  REQUIRE(osrt::connected());
  REQUIRE(cuptitrace_osrt_v1_attach()->size == sizeof(cuptitrace_osrt_v1));
  osrt::disarm();
  CHECK_FALSE(wrap::armed());
  osrt::arm(&rec, fakeClock);
  REQUIRE(wrap::armed());

  REQUIRE(wrap::begin(&start));
  uint64_t nested = 0;
  CHECK_FALSE(wrap::begin(&nested));  // a call made inside a recorded call
  errno = 42;
  wrap::end(callId(OsrtCall::Usleep), start, 0);
  CHECK(errno == 42);  // end() leaves the program's errno as it was

  {
    const osrt::TracerScope ours;  // the tracer's own code on a program thread
    CHECK_FALSE(wrap::begin(&nested));
  }
  REQUIRE(wrap::begin(&start));  // outside the scope again
  wrap::end(callId(OsrtCall::Sleep), start, 0);

  std::thread([&] {
    osrt::markTracerThread();
    uint64_t s = 0;
    CHECK_FALSE(wrap::begin(&s));
    CHECK(osrt::isTracerThread());
  }).join();
  std::thread([&] {
    {
      const osrt::FlushScope flushing;  // the tracer flushing on a program thread
      osrt::cuptiCallbackThread();
      CHECK_FALSE(osrt::isTracerThread());
    }
    osrt::cuptiCallbackThread();  // a buffer completed on a thread of CUPTI's own
    CHECK(osrt::isTracerThread());
  }).join();
  CHECK_FALSE(osrt::isTracerThread());  // the main thread stays the program's

  REQUIRE(wrap::begin(&start));
  osrt::disarm();
  wrap::end(callId(OsrtCall::Read), start, 0);  // ended after recording stopped: not kept
  rec.collect(trace.store);
  const auto records = all(trace.store);
  REQUIRE(records.size() == 2);
  CHECK(trace.strings.get(records[0].name) == "usleep");
  CHECK(trace.strings.get(records[1].name) == "sleep");
  CHECK(records[0].end > records[0].start);
  osrt::connect(nullptr);
}
