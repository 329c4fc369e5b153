// Capture windows: when no window can open any more (pastLastWindow), which
// is when the tracer detaches CUPTI. Only a finished time window and the end
// of a bounded span of NVTX ranges qualify; modes that can reopen never do.
#include <catch2/catch.hpp>

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

constexpr uint64_t kMs = 1000000;
constexpr uint64_t kS = 1000000000;

}  // namespace

TEST_CASE("capture finish: a time window is past only after its end") {
  CaptureWindow w(spec("time:1s+30ms"));
  CHECK_FALSE(w.pastLastWindow());  // not started
  w.start(10 * kS);
  CHECK_FALSE(w.pastLastWindow());  // before the delay: the window is still to come
  w.tick(11 * kS);
  REQUIRE(w.on());
  CHECK_FALSE(w.pastLastWindow());  // open
  w.tick(11 * kS + 29 * kMs);
  CHECK_FALSE(w.pastLastWindow());
  w.tick(11 * kS + 30 * kMs);
  CHECK(w.pastLastWindow());
  w.tick(100 * kS);  // later ticks change nothing
  CHECK(w.pastLastWindow());
  CHECK_FALSE(w.on());
}

TEST_CASE("capture finish: a time window whose whole span passed before a tick") {
  CaptureWindow w(spec("time:1s+1s"));
  w.start(0);
  w.tick(3 * kS);  // the thread woke late: the window never opened, and never will
  CHECK(w.pastLastWindow());
}

TEST_CASE("capture finish: a time window with no duration runs to the end") {
  CaptureWindow w(spec("time:1s"));
  w.start(0);
  w.tick(kS);
  w.tick(1000 * kS);
  CHECK(w.on());
  CHECK_FALSE(w.pastLastWindow());
}

TEST_CASE("capture finish: a bounded span of NVTX ranges ends when its last range closes") {
  CaptureWindow w(spec("nvtx:step@2-3"));
  w.start(0);
  for (int step = 1; step <= 3; ++step) {
    w.rangePush(1, 0, "step");
    CHECK_FALSE(w.pastLastWindow());
    w.rangePop(1, 0);
    CHECK(w.pastLastWindow() == (step == 3));
  }
  // Later ranges of the name reopen nothing.
  w.rangePush(1, 0, "step");
  CHECK_FALSE(w.on());
  CHECK(w.pastLastWindow());
}

TEST_CASE("capture finish: the last range closing while an earlier one is open") {
  // Start/end ranges may overlap: occurrence 2 ends before occurrence 1.
  CaptureWindow w(spec("nvtx:step@1-2"));
  w.start(0);
  w.rangeStart(11, "step");
  w.rangeStart(12, "step");
  w.rangeEnd(12);
  CHECK(w.on());
  CHECK_FALSE(w.pastLastWindow());
  w.rangeEnd(11);
  CHECK(w.pastLastWindow());
}

TEST_CASE("capture finish: a bounded span whose ranges never come is never past") {
  CaptureWindow w(spec("nvtx:step@5-6"));
  w.start(0);
  for (int i = 0; i < 4; ++i) {
    w.rangePush(1, 0, "step");
    w.rangePop(1, 0);
  }
  CHECK_FALSE(w.pastLastWindow());
}

TEST_CASE("capture finish: modes that can reopen are never past their last window") {
  for (const char* text : {"profiler", "signal", "signal:USR1", "nvtx:step", "nvtx:step*", "nvtx:step@2-"}) {
    INFO(text);
    CaptureWindow w(spec(text));
    w.start(0);
    for (int i = 0; i < 5; ++i) {
      w.profilerStart();
      w.profilerStop();
      w.toggle();
      w.toggle();
      w.rangePush(1, 0, "step");
      w.rangePop(1, 0);
      w.rangeStart(100 + i, "step");
      w.rangeEnd(100 + i);
      w.tick(static_cast<uint64_t>(i) * 1000 * kS);
    }
    CHECK_FALSE(w.pastLastWindow());
  }
}

TEST_CASE("capture finish: all is finished but never past: it is on for good") {
  CaptureWindow w(spec("all"));
  w.start(0);
  CHECK(w.finished());
  CHECK(w.on());
  CHECK_FALSE(w.pastLastWindow());
}
