// Capture windows on the CUPTI side: feeds core/capture_window's decision
// with the program's cudaProfilerStart/Stop calls, its NVTX ranges, the
// clock and a signal, and switches collection: outside a window the activity
// kinds are disabled in CUPTI (nothing is recorded, not filtered afterwards),
// at a window's start they are enabled again, at its end CUPTI is flushed so
// the window's records are handed over promptly. Once no window can open any
// more, CUPTI is detached (collectors/cupti_detach.h): disabled kinds still
// leave part of its cost on every launch.
//
// One thread of ours waits for the time window's deadlines, for the toggle
// signal (its handler only writes a byte to a pipe), for flush requests and
// for the detach.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/capture_window.h"
#include "core/fault_boundary.h"
#include "core/trace.h"

namespace cuptitrace {

class CaptureControl {
 public:
  struct Actions {
    std::function<bool(bool on)> setRecording;  // enables or disables the activity kinds
    std::function<void()> flush;                // asks CUPTI for completed buffers
    // Past the last window: detaches CUPTI. Called on the capture thread with
    // no lock of ours held, again every few milliseconds while it answers
    // false (the detach waits for a CUDA call of the program); empty: CUPTI
    // stays attached.
    std::function<bool()> detach;
    // A window opened: called after setRecording(true), on the thread that
    // opened it (a program thread in cudaProfilerStart or an NVTX push, or
    // the capture thread), with no lock of ours held, so that what it waits
    // for holds up no other thread's NVTX calls. Empty: nothing to wait for.
    std::function<void()> opened;
  };

  CaptureControl(CaptureSpec spec, Actions actions);
  ~CaptureControl();
  CaptureControl(const CaptureControl&) = delete;
  CaptureControl& operator=(const CaptureControl&) = delete;

  // Collection is on when this is called (the kinds were just enabled).
  // Sets the first state and starts the thread. False (and why) when the
  // thread or its pipe cannot be had; collection then stays on throughout.
  bool start(std::string& error);
  // No transition after this returns; joins the thread. Kinds stay as they are.
  void stop();
  // The windows so far; one still open ends at `endNs`.
  std::vector<CaptureSpan> windows(uint64_t endNs) const;

  const CaptureSpec& spec() const { return spec_; }
  bool on() const { return on_.load(std::memory_order_relaxed); }
  // The capture thread's boundary counts into `trace` (fault_boundary.h): a
  // failure there leaves collection as it was, with no further transition.
  void publish(Trace& trace) const { boundary_.publish(trace.counters); }
  // Where the toggle signal's handler writes one byte (non-blocking); -1 before start().
  int signalFd() const { return pipe_[1]; }

  // From the callback subscriber, on the program's threads.
  void profilerCall(bool start, CUpti_ApiCallbackSite site);
  // An NVTX call: opening() before the recorder sees it (a range that opens
  // a window is recorded), closing() after (a range that closes it too).
  void nvtxOpening(CUpti_CallbackId cbid, const CUpti_NvtxData* data);
  void nvtxClosing(CUpti_CallbackId cbid, const CUpti_NvtxData* data);
  // Whether the NVTX recorder sees this call: ranges and marks inside
  // windows; the end of a range begun inside a window; names always.
  bool admitNvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data);

 private:
  // True when a window opened (actions_.opened is then the caller's to call, unlocked).
  bool apply(CaptureChange change, bool onThread);  // mutex_ held
  void windowOpened() {
    if (actions_.opened) actions_.opened();
  }
  void run();
  void requestFlush();
  std::string rangeName(CUpti_CallbackId cbid, const CUpti_NvtxData* data);  // mutex_ held

  const CaptureSpec spec_;
  const Actions actions_;

  mutable std::mutex mutex_;
  CaptureWindow window_;
  std::vector<CaptureSpan> windows_;
  bool recording_ = true;  // the kinds' state in CUPTI
  bool flushPending_ = false;
  std::unordered_map<const void*, std::string> registered_;  // NVTX registered strings, by handle

  std::atomic<bool> on_{false};
  std::atomic<bool> started_{false};
  std::atomic<bool> stopped_{false};
  std::atomic<bool> finished_{false};  // no window can open any more

  std::mutex idsMutex_;
  std::unordered_set<uint64_t> recordedIds_;  // start/end ranges begun inside a window

  int pipe_[2] = {-1, -1};
  std::thread thread_;
  FaultBoundary boundary_{"capture_thread"};
};

}  // namespace cuptitrace
