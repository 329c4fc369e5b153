// Capture control fed with NVTX callback data built by hand: windows switch
// the activity kinds, flush after closing, and decide what the NVTX recorder sees.
#include <catch2/catch.hpp>

#include <generated_nvtx_meta.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "collectors/capture_control.h"

using namespace cuptitrace;

namespace {

struct Recorded {
  std::mutex mutex;
  std::vector<bool> recording;  // every setRecording call
  std::atomic<int> flushes{0};
  std::atomic<int> detaches{0};       // every call of the detach action
  int detachOutcomeAt = 1;            // the call that answers "done"
  std::chrono::steady_clock::time_point firstDetach;
};

CaptureControl::Actions actions(Recorded& r) {
  return {[&r](bool on) {
            std::lock_guard<std::mutex> lock(r.mutex);
            r.recording.push_back(on);
            return true;
          },
          [&r] { ++r.flushes; },
          nullptr};
}

CaptureControl::Actions detaching(Recorded& r) {
  CaptureControl::Actions a = actions(r);
  a.detach = [&r] {
    if (r.detaches.load() == 0) r.firstDetach = std::chrono::steady_clock::now();
    return ++r.detaches >= r.detachOutcomeAt;
  };
  return a;
}

CaptureSpec spec(const char* text) {
  auto s = parseCaptureSpec(text);
  REQUIRE(s.has_value());
  return *s;
}

// One NVTX call as CUPTI hands it to a subscriber.
struct Call {
  nvtxRangePushA_params push{};
  nvtxRangeStartA_params start{};
  nvtxRangeEnd_params end{};
  nvtxMarkA_params mark{};
  nvtxRangeId_t returned = 0;
  CUpti_NvtxData data{};
};

// Runs one call through the control the way the subscriber does; true when
// the recorder would have seen it.
bool send(CaptureControl& c, CUpti_CallbackId cbid, Call& call) {
  c.nvtxOpening(cbid, &call.data);
  const bool admitted = c.admitNvtx(cbid, &call.data);
  c.nvtxClosing(cbid, &call.data);
  return admitted;
}

bool push(CaptureControl& c, const char* name) {
  Call call;
  call.push.message = name;
  call.data.functionParams = &call.push;
  return send(c, CUPTI_CBID_NVTX_nvtxRangePushA, call);
}

bool pop(CaptureControl& c) {
  Call call;
  call.data.functionParams = &call.push;  // nvtxRangePop has no parameters CUPTI fills
  return send(c, CUPTI_CBID_NVTX_nvtxRangePop, call);
}

bool mark(CaptureControl& c, const char* name) {
  Call call;
  call.mark.message = name;
  call.data.functionParams = &call.mark;
  return send(c, CUPTI_CBID_NVTX_nvtxMarkA, call);
}

bool startRange(CaptureControl& c, const char* name, nvtxRangeId_t id) {
  Call call;
  call.start.message = name;
  call.returned = id;
  call.data.functionParams = &call.start;
  call.data.functionReturnValue = &call.returned;
  return send(c, CUPTI_CBID_NVTX_nvtxRangeStartA, call);
}

bool endRange(CaptureControl& c, nvtxRangeId_t id) {
  Call call;
  call.end.id = id;
  call.data.functionParams = &call.end;
  return send(c, CUPTI_CBID_NVTX_nvtxRangeEnd, call);
}

bool waitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 200 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

}  // namespace

TEST_CASE("capture control: an NVTX window switches the kinds and gates the recorder") {
  Recorded r;
  CaptureControl c(spec("nvtx:step@2-3"), actions(r));
  std::string error;
  REQUIRE(c.start(error));
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    CHECK(r.recording == std::vector<bool>{false});  // off until the window
  }
  CHECK_FALSE(c.on());

  CHECK_FALSE(push(c, "step"));  // step 1: outside
  CHECK_FALSE(mark(c, "m1"));
  CHECK_FALSE(pop(c));
  CHECK(push(c, "step"));        // step 2 opens the window and is recorded
  CHECK(c.on());
  CHECK(push(c, "inner"));
  CHECK(mark(c, "m2"));
  CHECK(pop(c));
  CHECK(pop(c));
  CHECK(c.on());                 // between steps 2 and 3
  CHECK(push(c, "step"));        // step 3
  CHECK(pop(c));                 // its pop is recorded, then closes the window
  CHECK_FALSE(c.on());
  CHECK_FALSE(push(c, "step"));  // step 4
  CHECK_FALSE(pop(c));
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    CHECK(r.recording == std::vector<bool>{false, true, false});
  }
  CHECK(waitFor([&] { return r.flushes.load() == 1; }));  // flushed once, after the window
  c.stop();
  const auto windows = c.windows(0);
  REQUIRE(windows.size() == 1);
  CHECK(windows[0].endNs >= windows[0].startNs);
}

TEST_CASE("capture control: a range pushed in a window is recorded to its pop, one pushed outside never") {
  Recorded r;
  CaptureControl c(spec("profiler"), actions(r));
  std::string error;
  REQUIRE(c.start(error));
  CHECK_FALSE(push(c, "before"));             // pushed outside
  CHECK_FALSE(startRange(c, "before", 11));
  c.profilerCall(true, CUPTI_API_ENTER);      // the window opens as cudaProfilerStart returns
  CHECK_FALSE(c.on());
  c.profilerCall(true, CUPTI_API_EXIT);
  CHECK(c.on());
  CHECK(push(c, "inside"));
  CHECK(startRange(c, "inside", 12));
  CHECK_FALSE(endRange(c, 11));               // began outside: its end is not recorded either
  c.profilerCall(false, CUPTI_API_EXIT);      // ... and closes as cudaProfilerStop is entered
  CHECK(c.on());
  c.profilerCall(false, CUPTI_API_ENTER);
  CHECK_FALSE(c.on());
  CHECK(pop(c));                              // closes "inside": recorded, though the window closed
  CHECK(endRange(c, 12));
  CHECK_FALSE(pop(c));                        // closes "before": never recorded
  CHECK_FALSE(mark(c, "after"));
  c.profilerCall(true, CUPTI_API_EXIT);       // a second window
  CHECK(c.on());
  c.stop();
  c.profilerCall(false, CUPTI_API_ENTER);     // after stop: nothing changes any more
  CHECK(c.on());
  const auto windows = c.windows(UINT64_MAX);
  REQUIRE(windows.size() == 2);
  CHECK(windows[1].endNs == UINT64_MAX);      // still open at the end: ends there
}

TEST_CASE("capture control: a signal toggle arrives through the pipe") {
  Recorded r;
  CaptureControl c(spec("signal"), actions(r));
  std::string error;
  REQUIRE(c.start(error));
  REQUIRE(c.signalFd() >= 0);
  const char byte = 'S';
  REQUIRE(::write(c.signalFd(), &byte, 1) == 1);
  CHECK(waitFor([&] { return c.on(); }));
  REQUIRE(::write(c.signalFd(), &byte, 1) == 1);
  CHECK(waitFor([&] { return !c.on(); }));
  CHECK(waitFor([&] { return r.flushes.load() == 1; }));
  c.stop();
  CHECK(c.windows(0).size() == 1);
  std::lock_guard<std::mutex> lock(r.mutex);
  CHECK(r.recording == std::vector<bool>{false, true, false});
}

TEST_CASE("capture control: a time window opens and closes on the clock") {
  Recorded r;
  CaptureControl c(spec("time:50ms+50ms"), actions(r));
  std::string error;
  REQUIRE(c.start(error));
  CHECK(waitFor([&] {
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.recording.size() == 3;
  }));
  c.stop();
  // The control's lock is never taken under the recorder's (the control takes them the other way round).
  const auto windows = c.windows(0);
  REQUIRE(windows.size() == 1);
  std::lock_guard<std::mutex> lock(r.mutex);
  CHECK(r.recording == std::vector<bool>{false, true, false});
}

TEST_CASE("capture control: past a time window's end CUPTI is detached, after a pause, until done") {
  Recorded r;
  r.detachOutcomeAt = 3;  // the program makes its CUDA call on the third look
  CaptureControl c(spec("time:0+30ms"), detaching(r));
  std::string error;
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(c.start(error));
  CHECK(waitFor([&] { return r.detaches.load() == 3; }));
  // Records of work still on the GPU at the close get time to complete.
  CHECK(r.firstDetach - started >= std::chrono::milliseconds(30 + 100));
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  CHECK(r.detaches.load() == 3);  // done: never called again
  c.stop();
  CHECK(c.windows(0).size() == 1);
  std::lock_guard<std::mutex> lock(r.mutex);
  CHECK(r.recording == std::vector<bool>{false});  // on from the start, off at the end
}

TEST_CASE("capture control: the last range of a bounded NVTX span closing detaches CUPTI") {
  Recorded r;
  CaptureControl c(spec("nvtx:step@2"), detaching(r));
  std::string error;
  REQUIRE(c.start(error));
  CHECK_FALSE(push(c, "step"));
  CHECK_FALSE(pop(c));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  CHECK(r.detaches.load() == 0);  // step 2 is still to come
  CHECK(push(c, "step"));
  CHECK(pop(c));
  CHECK(waitFor([&] { return r.detaches.load() == 1; }));
  c.stop();
}

TEST_CASE("capture control: modes that can reopen never detach CUPTI") {
  for (const char* text : {"signal", "nvtx:step", "nvtx:step@1-", "time:0"}) {
    INFO(text);
    Recorded r;
    CaptureControl c(spec(text), detaching(r));
    std::string error;
    REQUIRE(c.start(error));
    const char byte = 'S';
    REQUIRE(::write(c.signalFd(), &byte, 1) == 1);
    REQUIRE(::write(c.signalFd(), &byte, 1) == 1);
    push(c, "step");
    pop(c);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    CHECK(r.detaches.load() == 0);
    c.stop();
  }
}

TEST_CASE("capture control: stopped before the pause is over: no detach") {
  Recorded r;
  CaptureControl c(spec("time:0+10ms"), detaching(r));
  std::string error;
  REQUIRE(c.start(error));
  CHECK(waitFor([&] {
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.recording.size() == 1;  // the window has closed
  }));
  c.stop();  // the exit path comes first
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  CHECK(r.detaches.load() == 0);
}

TEST_CASE("capture control: a window's opening is waited for on the opening thread, with no lock held") {
  Recorded r;
  CaptureControl::Actions a = actions(r);
  CaptureControl* control = nullptr;
  int opened = 0;
  bool unlocked = false, recordingFirst = false;
  std::thread::id openedOn;
  a.opened = [&] {
    ++opened;
    openedOn = std::this_thread::get_id();
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      recordingFirst = !r.recording.empty() && r.recording.back();
    }
    // Another thread takes the control's lock meanwhile (windows() takes it);
    // let go of, not joined, should the lock be held.
    auto done = std::make_shared<std::promise<void>>();
    std::future<void> taken = done->get_future();
    std::thread([control, done] {
      control->windows(0);
      done->set_value();
    }).detach();
    unlocked = taken.wait_for(std::chrono::seconds(2)) == std::future_status::ready;
  };
  CaptureControl c(spec("profiler"), a);
  control = &c;
  std::string error;
  REQUIRE(c.start(error));
  c.profilerCall(true, CUPTI_API_EXIT);
  CHECK(opened == 1);
  CHECK(unlocked);
  CHECK(recordingFirst);  // after the kinds were switched on
  CHECK(openedOn == std::this_thread::get_id());
  c.profilerCall(false, CUPTI_API_ENTER);  // a window's end waits for nothing
  CHECK(opened == 1);
  c.profilerCall(true, CUPTI_API_EXIT);
  CHECK(opened == 2);
  c.stop();
}
