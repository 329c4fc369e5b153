// Capture windows: the spec parser and the decision, fed synthetic event sequences.
#include <catch2/catch.hpp>

#include <csignal>

#include "core/capture_window.h"

using namespace cuptitrace;

namespace {

CaptureSpec spec(const char* text) {
  std::string why;
  auto s = parseCaptureSpec(text, &why);
  INFO(text << ": " << why);
  REQUIRE(s.has_value());
  return *s;
}

constexpr auto kNone = CaptureChange::None;
constexpr auto kOpen = CaptureChange::Open;
constexpr auto kClose = CaptureChange::Close;
constexpr uint64_t kMs = 1000000;
constexpr uint64_t kS = 1000000000;

}  // namespace

TEST_CASE("capture spec: every mode parses and reads back from its text") {
  CHECK(spec("all").mode == CaptureMode::All);
  CHECK(spec(" ALL ").mode == CaptureMode::All);
  CHECK(spec("profiler").mode == CaptureMode::Profiler);

  auto n = spec("nvtx:step");
  CHECK(n.mode == CaptureMode::Nvtx);
  CHECK(n.rangeName == "step");
  CHECK(n.everyRange);
  CHECK_FALSE(n.rangePrefix);

  n = spec("nvtx:step@10-12");
  CHECK(n.rangeName == "step");
  CHECK_FALSE(n.everyRange);
  CHECK(n.first == 10);
  CHECK(n.last == 12);
  n = spec("nvtx:step@7");
  CHECK((n.first == 7 && n.last == 7));
  n = spec("nvtx:step@3-");
  CHECK((n.first == 3 && n.last == UINT64_MAX));
  n = spec("nvtx:ProfilerStep*@2-4");
  CHECK(n.rangePrefix);
  CHECK(n.rangeName == "ProfilerStep");
  // A name holding ':' and '@' that are not occurrences.
  n = spec("nvtx:ns::train@epoch");
  CHECK(n.rangeName == "ns::train@epoch");
  CHECK(n.everyRange);
  n = spec("nvtx:user@1@2-3");
  CHECK(n.rangeName == "user@1");
  CHECK(n.first == 2);
  n = spec("nvtx:user@1@*");
  CHECK(n.rangeName == "user@1");
  CHECK(n.everyRange);

  auto t = spec("time:10s+2s");
  CHECK(t.mode == CaptureMode::Time);
  CHECK(t.delayNs == 10 * kS);
  CHECK(t.durationNs == 2 * kS);
  CHECK(spec("time:1.5").delayNs == 1500 * kMs);
  CHECK(spec("time:0+250ms").durationNs == 250 * kMs);
  CHECK(spec("time:2m").delayNs == 120 * kS);
  CHECK(spec("time:1h").delayNs == 3600 * kS);
  CHECK(spec("time:1.5us").delayNs == 1500);
  CHECK(spec("time:7ns").delayNs == 7);
  CHECK(spec("time:0").durationNs == 0);

  auto s = spec("signal");
  CHECK(s.mode == CaptureMode::Signal);
  CHECK(s.signal == SIGUSR2);
  CHECK(spec("signal:USR1").signal == SIGUSR1);
  CHECK(spec("signal:SIGUSR1").signal == SIGUSR1);
  CHECK(spec("signal:rtmin+2").signal == SIGRTMIN + 2);
  CHECK(spec("signal:RTMIN").signal == SIGRTMIN);

  for (const char* text : {"all", "profiler", "nvtx:step", "nvtx:step@10-12", "nvtx:step@4", "nvtx:step@4-",
                           "nvtx:Profiler*@2-3", "nvtx:user@1@*", "nvtx:a@b", "time:10s+2s", "time:1.5s",
                           "time:0+250ms", "time:1500ns", "signal", "signal:RTMIN+3", "signal:usr1"}) {
    const CaptureSpec a = spec(text);
    const std::string canonical = captureSpecText(a);
    INFO(text << " -> " << canonical);
    const CaptureSpec b = spec(canonical.c_str());
    CHECK(captureSpecText(b) == canonical);
    CHECK(b.mode == a.mode);
    CHECK(b.rangeName == a.rangeName);
    CHECK(b.everyRange == a.everyRange);
    CHECK(b.first == a.first);
    CHECK(b.last == a.last);
    CHECK(b.delayNs == a.delayNs);
    CHECK(b.durationNs == a.durationNs);
    CHECK(b.signal == a.signal);
  }
  CHECK(captureSpecText(spec("time:1.5s+0.25s")) == "time:1500ms+250ms");
  CHECK(captureSpecText(spec("signal")) == "signal:USR2");
}

TEST_CASE("capture spec: bad values are refused with a reason") {
  for (const char* text : {"", "everything", "all:x", "profiler:x", "nvtx", "nvtx:", "nvtx:step@0",
                           "nvtx:step@5-3", "time", "time:", "time:abc", "time:5x", "time:1.5ns", "time:-1s",
                           "time:1s+0", "time:1s+", "time:.5s", "time:101d", "time:3000h", "signal:TERM",
                           "signal:INT", "signal:9", "signal:RTMIN+999", "signal:RTMIN-1", "nvtx:a\nb"}) {
    std::string why;
    INFO("'" << text << "'");
    CHECK_FALSE(parseCaptureSpec(text, &why).has_value());
    CHECK_FALSE(why.empty());
  }
  CHECK_FALSE(parseCaptureSpec("nvtx:" + std::string(300, 'x')).has_value());
}

TEST_CASE("capture window: all is on from the start and never changes") {
  CaptureWindow w(spec("all"));
  CHECK(w.profilerStart() == kNone);  // before start: ignored
  CHECK(w.start(5) == kOpen);
  CHECK(w.on());
  CHECK(w.finished());
  CHECK(w.profilerStop() == kNone);
  CHECK(w.toggle() == kNone);
  CHECK(w.tick(10 * kS) == kNone);
  CHECK(w.on());
}

TEST_CASE("capture window: profiler start/stop, repeatable, repeated calls do nothing") {
  CaptureWindow w(spec("profiler"));
  CHECK(w.profilerStart() == kNone);  // not started yet
  CHECK(w.start(0) == kNone);
  CHECK_FALSE(w.on());
  CHECK(w.profilerStop() == kNone);  // stop before any start
  CHECK(w.profilerStart() == kOpen);
  CHECK(w.profilerStart() == kNone);  // cudaProfilerStart reaches cuProfilerStart too
  CHECK(w.on());
  CHECK(w.profilerStop() == kClose);
  CHECK(w.profilerStop() == kNone);
  CHECK(w.profilerStart() == kOpen);
  CHECK(w.profilerStop() == kClose);
  CHECK_FALSE(w.finished());
  // Other events do not move a profiler window.
  CHECK(w.toggle() == kNone);
  CHECK(w.rangePush(1, 0, "step") == kNone);
  CHECK(w.tick(100 * kS) == kNone);
}

TEST_CASE("capture window: steps 10 to 12 of a push/pop range") {
  CaptureWindow w(spec("nvtx:step@10-12"));
  REQUIRE(w.start(0) == kNone);
  std::vector<int> onSteps;
  for (int step = 1; step <= 20; ++step) {
    const auto opened = w.rangePush(7, 0, "step");
    CHECK(opened == (step == 10 ? kOpen : kNone));
    // Nested ranges of other names, and a pop of theirs, change nothing.
    CHECK(w.rangePush(7, 0, "forward") == kNone);
    CHECK(w.rangePop(7, 0) == kNone);
    if (w.on()) onSteps.push_back(step);
    const auto closed = w.rangePop(7, 0);
    CHECK(closed == (step == 12 ? kClose : kNone));
    // Between steps 10 and 12 the window stays open.
    CHECK(w.on() == (step >= 10 && step < 12));
  }
  CHECK(onSteps == std::vector<int>{10, 11, 12});
  CHECK(w.finished());
  CHECK(w.occurrences() == 12);  // nothing counted once finished
}

TEST_CASE("capture window: a single occurrence, start/end ranges across threads") {
  CaptureWindow w(spec("nvtx:step@2"));
  REQUIRE(w.start(0) == kNone);
  CHECK(w.rangeStart(100, "step") == kNone);
  CHECK(w.rangeStart(101, "other") == kNone);
  CHECK(w.rangeEnd(100) == kNone);
  CHECK(w.rangeStart(102, "step") == kOpen);
  CHECK(w.rangeEnd(101) == kNone);    // not a step
  CHECK(w.rangeEnd(999) == kNone);    // never started
  CHECK(w.rangeEnd(102) == kClose);   // ended by another thread: ids only
  CHECK(w.finished());
  CHECK(w.rangeStart(103, "step") == kNone);
}

TEST_CASE("capture window: every range of a name is its own window; prefix names") {
  CaptureWindow w(spec("nvtx:ProfilerStep*"));
  REQUIRE(w.start(0) == kNone);
  CHECK(w.rangePush(1, 0, "ProfilerStep#1") == kOpen);
  CHECK(w.rangePop(1, 0) == kClose);
  CHECK(w.rangePush(1, 0, "Profiler") == kNone);  // shorter than the prefix
  CHECK(w.rangePop(1, 0) == kNone);
  CHECK(w.rangePush(1, 0, "ProfilerStep#2") == kOpen);
  // A second thread's step overlaps: the window stays open until both closed.
  CHECK(w.rangePush(2, 0, "ProfilerStep#3") == kNone);
  CHECK(w.rangePop(1, 0) == kNone);
  CHECK(w.on());
  CHECK(w.rangePop(2, 0) == kClose);
  CHECK_FALSE(w.finished());
  CHECK(w.occurrences() == 3);
}

TEST_CASE("capture window: exact names, domains, recursion, stray pops") {
  CaptureWindow w(spec("nvtx:step@1-2"));
  REQUIRE(w.start(0) == kNone);
  CHECK(w.rangePop(1, 0) == kNone);                // a pop with no push
  CHECK(w.rangePush(1, 0, "steps") == kNone);      // not the exact name
  CHECK(w.rangePush(1, 42, "step") == kOpen);      // occurrence 1, in domain 42
  CHECK(w.rangePush(1, 0, "inner") == kNone);
  CHECK(w.rangePop(1, 42) == kNone);               // closes step (domain 42), not inner; 2 not seen yet
  CHECK(w.on());
  CHECK(w.rangePush(1, 42, "step") == kNone);      // occurrence 2
  CHECK(w.rangePush(1, 42, "step") == kNone);      // occurrence 3 (recursion): outside the span
  CHECK(w.rangePop(1, 42) == kNone);               // closes 3
  CHECK(w.on());
  CHECK(w.rangePop(1, 42) == kClose);              // closes 2: the last of the span
  CHECK(w.finished());
}

TEST_CASE("capture window: steps from N to the end of the run") {
  CaptureWindow w(spec("nvtx:step@3-"));
  REQUIRE(w.start(0) == kNone);
  for (int step = 1; step <= 10; ++step) {
    CHECK(w.rangePush(1, 0, "step") == (step == 3 ? kOpen : kNone));
    CHECK(w.rangePop(1, 0) == kNone);
  }
  CHECK(w.on());
  CHECK_FALSE(w.finished());
}

TEST_CASE("capture window: a time window after a delay, for a duration") {
  CaptureWindow w(spec("time:2s+500ms"));
  const uint64_t t0 = 1000 * kS;
  CHECK(w.nextDeadline() == UINT64_MAX);  // not started
  CHECK(w.start(t0) == kNone);
  CHECK(w.nextDeadline() == t0 + 2 * kS);
  CHECK(w.tick(t0 + 1 * kS) == kNone);
  CHECK(w.tick(t0 + 2 * kS) == kOpen);
  CHECK(w.nextDeadline() == t0 + 2500 * kMs);
  CHECK(w.tick(t0 + 2400 * kMs) == kNone);
  CHECK(w.tick(t0 + 2500 * kMs) == kClose);
  CHECK(w.finished());
  CHECK(w.nextDeadline() == UINT64_MAX);
  CHECK(w.tick(t0 + 3 * kS) == kNone);
  CHECK_FALSE(w.on());
}

TEST_CASE("capture window: time windows with no delay, no end, or a late tick") {
  CaptureWindow now(spec("time:0+1s"));
  CHECK(now.start(50) == kOpen);
  CHECK(now.nextDeadline() == 50 + kS);
  CHECK(now.tick(50 + kS) == kClose);

  CaptureWindow open(spec("time:1s"));
  CHECK(open.start(0) == kNone);
  CHECK(open.tick(kS) == kOpen);
  CHECK(open.nextDeadline() == UINT64_MAX);
  CHECK(open.tick(1000 * kS) == kNone);
  CHECK(open.on());

  // The thread woke up after the whole window had passed: nothing opens.
  CaptureWindow late(spec("time:1s+1s"));
  CHECK(late.start(0) == kNone);
  CHECK(late.tick(5 * kS) == kNone);
  CHECK(late.finished());
  CHECK_FALSE(late.on());
}

TEST_CASE("capture window: a signal toggles") {
  CaptureWindow w(spec("signal:USR1"));
  CHECK(w.toggle() == kNone);  // before start
  CHECK(w.start(0) == kNone);
  CHECK(w.toggle() == kOpen);
  CHECK(w.toggle() == kClose);
  CHECK(w.toggle() == kOpen);
  CHECK(w.profilerStop() == kNone);
  CHECK(w.on());
  CHECK(w.toggle() == kClose);
  CHECK_FALSE(w.finished());
}
