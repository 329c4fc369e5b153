#include "collectors/capture_control.h"

#include <fcntl.h>
#include <generated_nvtx_meta.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>

#include "collectors/cupti_detach.h"
#include "collectors/osrt_state.h"
#include "core/log.h"
#include "core/own_threads.h"
#include "core/utf8.h"

namespace cuptitrace {
namespace {

// Bytes through the pipe to the capture thread.
constexpr char kToggle = 'S';
constexpr char kFlush = 'F';
constexpr char kQuit = 'Q';

// Once detached, CUPTI's own clock would attach it again.
uint64_t now() { return traceClockNs(); }

// Work launched in the last window may still run on the GPU when it closes,
// and the detach takes every record as it is then: a kernel's record is
// complete only once the kernel has finished. Queues of small launches drain
// well within this.
constexpr auto kSettleBeforeDetach = std::chrono::milliseconds(100);
// How often the capture thread looks whether a program thread has detached.
constexpr int kDetachPollMs = 10;

uint32_t cachedThreadId() {
  thread_local const auto tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tid;
}

template <typename T>
const T& params(const CUpti_NvtxData* data) {
  return *static_cast<const T*>(data->functionParams);
}

uint64_t domainKey(const void* domain) { return reinterpret_cast<uintptr_t>(domain); }

bool isPush(CUpti_CallbackId cbid) {
  return cbid == CUPTI_CBID_NVTX_nvtxRangePushA || cbid == CUPTI_CBID_NVTX_nvtxRangePushW ||
         cbid == CUPTI_CBID_NVTX_nvtxRangePushEx || cbid == CUPTI_CBID_NVTX_nvtxDomainRangePushEx;
}
bool isPop(CUpti_CallbackId cbid) {
  return cbid == CUPTI_CBID_NVTX_nvtxRangePop || cbid == CUPTI_CBID_NVTX_nvtxDomainRangePop;
}
bool isStart(CUpti_CallbackId cbid) {
  return cbid == CUPTI_CBID_NVTX_nvtxRangeStartA || cbid == CUPTI_CBID_NVTX_nvtxRangeStartW ||
         cbid == CUPTI_CBID_NVTX_nvtxRangeStartEx || cbid == CUPTI_CBID_NVTX_nvtxDomainRangeStartEx;
}
bool isEnd(CUpti_CallbackId cbid) {
  return cbid == CUPTI_CBID_NVTX_nvtxRangeEnd || cbid == CUPTI_CBID_NVTX_nvtxDomainRangeEnd;
}
bool isMark(CUpti_CallbackId cbid) {
  return cbid == CUPTI_CBID_NVTX_nvtxMarkA || cbid == CUPTI_CBID_NVTX_nvtxMarkW ||
         cbid == CUPTI_CBID_NVTX_nvtxMarkEx || cbid == CUPTI_CBID_NVTX_nvtxDomainMarkEx;
}

const void* pushDomain(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  return cbid == CUPTI_CBID_NVTX_nvtxDomainRangePushEx ? params<nvtxDomainRangePushEx_params>(data).domain : nullptr;
}
const void* popDomain(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  return cbid == CUPTI_CBID_NVTX_nvtxDomainRangePop ? params<nvtxDomainRangePop_params>(data).domain : nullptr;
}
uint64_t startedId(const CUpti_NvtxData* data) {
  return data->functionReturnValue ? *static_cast<const nvtxRangeId_t*>(data->functionReturnValue) : 0;
}
uint64_t endedId(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  return cbid == CUPTI_CBID_NVTX_nvtxDomainRangeEnd ? params<nvtxDomainRangeEnd_params>(data).core.id
                                                    : params<nvtxRangeEnd_params>(data).id;
}

// Push/pop ranges of this thread as the recorder saw them or not: a pop is
// recorded exactly when its push was, whatever the window does in between.
struct Gate {
  const void* domain;
  bool recorded;
};
thread_local std::vector<Gate> tGate;

}  // namespace

CaptureControl::CaptureControl(CaptureSpec spec, Actions actions)
    : spec_(std::move(spec)), actions_(std::move(actions)), window_(spec_) {}

CaptureControl::~CaptureControl() {
  stop();
  for (int fd : pipe_)
    if (fd >= 0) ::close(fd);
}

bool CaptureControl::start(std::string& error) {
  if (::pipe2(pipe_, O_CLOEXEC) != 0) {
    error = std::string("cannot make a pipe for the capture thread: ") + std::strerror(errno);
    return false;
  }
  // Program threads and the signal handler must never block on it.
  ::fcntl(pipe_[1], F_SETFL, ::fcntl(pipe_[1], F_GETFL) | O_NONBLOCK);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    apply(window_.start(now()), true);
    // Every mode but a time window with no delay starts off.
    if (!window_.on()) {
      recording_ = false;
      actions_.setRecording(false);
    }
    finished_ = window_.finished();
  }
  try {
    thread_ = std::thread([this] {
      osrt::markTracerThread();  // its waits are the tracer's, not the program's
      registerOwnThread("capture");
      boundary_.run([this] { run(); });
    });
  } catch (const std::exception& e) {
    error = std::string("cannot start the capture thread: ") + e.what();
    std::lock_guard<std::mutex> lock(mutex_);
    if (!recording_) actions_.setRecording(true);
    recording_ = true;
    return false;
  }
  started_ = true;
  return true;
}

void CaptureControl::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_.exchange(true) || !started_) return;
  }
  const char quit = kQuit;
  while (::write(pipe_[1], &quit, 1) < 0 && errno == EINTR) {
  }
  if (thread_.joinable()) thread_.join();
}

std::vector<CaptureSpan> CaptureControl::windows(uint64_t endNs) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<CaptureSpan> out = windows_;
  if (!out.empty() && out.back().endNs == 0) out.back().endNs = std::max(endNs, out.back().startNs);
  return out;
}

// CUPTI is called with mutex_ held, so transitions apply in the order they
// were decided. That lock is taken only on these capture paths, never in
// CUPTI's buffer callbacks, and enabling or disabling a kind does not call
// back into this class, so no lock order with CUPTI's own locks arises.
bool CaptureControl::apply(CaptureChange change, bool onThread) {
  if (change == CaptureChange::Open) {
    windows_.push_back({now(), 0});
    if (!recording_) actions_.setRecording(true);
    recording_ = true;
    on_ = true;
    logger().info("capture window {} opens", windows_.size());
    return true;
  } else if (change == CaptureChange::Close) {
    on_ = false;
    actions_.setRecording(false);
    recording_ = false;
    if (!windows_.empty()) windows_.back().endNs = now();
    logger().info("capture window {} closes", windows_.size());
    // The window's records go to the drain thread now rather than at exit.
    if (onThread) flushPending_ = true;
    else requestFlush();
  }
  return false;
}

void CaptureControl::requestFlush() {
  const char byte = kFlush;
  (void)::write(pipe_[1], &byte, 1);  // a full pipe already holds a request
}

void CaptureControl::run() {
  // Signals go to the program's threads, never this one.
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
  std::optional<std::chrono::steady_clock::time_point> detachAt;  // set once past the last window
  bool detachDone = !actions_.detach;
  while (true) {
    int timeoutMs = -1;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const uint64_t deadline = window_.nextDeadline();
      if (deadline != UINT64_MAX) {
        const uint64_t t = now();
        const uint64_t waitNs = deadline > t ? deadline - t : 0;
        timeoutMs = static_cast<int>(std::min<uint64_t>((waitNs + 999999) / 1000000, 60000));
      }
      if (!detachDone && window_.pastLastWindow())
        timeoutMs = timeoutMs < 0 ? kDetachPollMs : std::min(timeoutMs, kDetachPollMs);
    }
    pollfd wake{pipe_[0], POLLIN, 0};
    const int ready = ::poll(&wake, 1, timeoutMs);
    if (ready < 0 && errno != EINTR) return;
    bool quit = false;
    bool flush = false;
    bool opened = false;
    if (ready > 0) {
      char bytes[64];
      const ssize_t n = ::read(pipe_[0], bytes, sizeof(bytes));
      std::lock_guard<std::mutex> lock(mutex_);
      for (ssize_t i = 0; i < n; ++i) {
        if (bytes[i] == kQuit) quit = true;
        else if (bytes[i] == kFlush) flush = true;
        else if (bytes[i] == kToggle && !stopped_) opened = apply(window_.toggle(), true) || opened;
      }
    }
    if (quit) return;
    bool detachNow = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!stopped_ && !window_.finished()) opened = apply(window_.tick(now()), true) || opened;
      flush = flush || flushPending_;
      flushPending_ = false;
      if (!detachDone && !stopped_ && window_.pastLastWindow()) {
        const auto t = std::chrono::steady_clock::now();
        if (!detachAt) detachAt = t + kSettleBeforeDetach;
        detachNow = t >= *detachAt;
      }
    }
    if (opened) windowOpened();
    if (flush) actions_.flush();  // no lock of ours held: CUPTI calls back into the collector
    if (detachNow) detachDone = actions_.detach();
  }
}

void CaptureControl::profilerCall(bool start, CUpti_ApiCallbackSite site) {
  // The window runs from the end of cudaProfilerStart to the start of
  // cudaProfilerStop: neither call is part of it.
  if (start != (site == CUPTI_API_EXIT) || !started_ || stopped_) return;
  bool opened = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return;
    opened = apply(start ? window_.profilerStart() : window_.profilerStop(), false);
  }
  if (opened) windowOpened();
}

std::string CaptureControl::rangeName(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  auto fromAttributes = [&](const nvtxEventAttributes_t* e) -> std::string {
    if (e == nullptr || e->size < offsetof(nvtxEventAttributes_t, message) + sizeof(e->message)) return {};
    switch (e->messageType) {
      case NVTX_MESSAGE_TYPE_ASCII: return e->message.ascii ? e->message.ascii : "";
      case NVTX_MESSAGE_TYPE_UNICODE: return wideToUtf8(e->message.unicode);
      case NVTX_MESSAGE_TYPE_REGISTERED: {
        auto it = registered_.find(e->message.registered);
        return it == registered_.end() ? std::string() : it->second;
      }
      default: return {};
    }
  };
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      const char* m = params<nvtxRangePushA_params>(data).message;
      return m ? m : "";
    }
    case CUPTI_CBID_NVTX_nvtxRangeStartA: {
      const char* m = params<nvtxRangeStartA_params>(data).message;
      return m ? m : "";
    }
    case CUPTI_CBID_NVTX_nvtxRangePushW: return wideToUtf8(params<nvtxRangePushW_params>(data).message);
    case CUPTI_CBID_NVTX_nvtxRangeStartW: return wideToUtf8(params<nvtxRangeStartW_params>(data).message);
    case CUPTI_CBID_NVTX_nvtxRangePushEx: return fromAttributes(params<nvtxRangePushEx_params>(data).eventAttrib);
    case CUPTI_CBID_NVTX_nvtxRangeStartEx: return fromAttributes(params<nvtxRangeStartEx_params>(data).eventAttrib);
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
      return fromAttributes(params<nvtxDomainRangePushEx_params>(data).core.eventAttrib);
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
      return fromAttributes(params<nvtxDomainRangeStartEx_params>(data).core.eventAttrib);
    default: return {};
  }
}

void CaptureControl::nvtxOpening(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  if (!spec_.needsNvtx() || !started_ || finished_ || data == nullptr || data->functionParams == nullptr) return;
  const bool registers =
      cbid == CUPTI_CBID_NVTX_nvtxDomainRegisterStringA || cbid == CUPTI_CBID_NVTX_nvtxDomainRegisterStringW;
  if (!registers && !isPush(cbid) && !isStart(cbid)) return;
  bool opened = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return;
    if (registers) {
      // Ranges named with registered strings (nvtx3::registered_string) match by their text.
      if (data->functionReturnValue == nullptr) return;
      const void* handle = *static_cast<const nvtxStringHandle_t*>(data->functionReturnValue);
      const char* raw = params<nvtxDomainRegisterStringA_params>(data).string;
      registered_[handle] = cbid == CUPTI_CBID_NVTX_nvtxDomainRegisterStringA
                                ? std::string(raw ? raw : "")
                                : wideToUtf8(reinterpret_cast<const wchar_t*>(raw));
      return;
    }
    const std::string name = rangeName(cbid, data);
    if (isPush(cbid))
      opened = apply(window_.rangePush(cachedThreadId(), domainKey(pushDomain(cbid, data)), name), false);
    else
      opened = apply(window_.rangeStart(startedId(data), name), false);
    finished_ = window_.finished();
  }
  if (opened) windowOpened();
}

void CaptureControl::nvtxClosing(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  if (!spec_.needsNvtx() || !started_ || finished_ || data == nullptr || data->functionParams == nullptr) return;
  if (!isPop(cbid) && !isEnd(cbid)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_) return;
  if (isPop(cbid))
    apply(window_.rangePop(cachedThreadId(), domainKey(popDomain(cbid, data))), false);
  else
    apply(window_.rangeEnd(endedId(cbid, data)), false);
  finished_ = window_.finished();
}

bool CaptureControl::admitNvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  if (data == nullptr || data->functionParams == nullptr) return false;
  const bool on = on_.load(std::memory_order_relaxed);
  if (isPush(cbid)) {
    tGate.push_back({pushDomain(cbid, data), on});
    return on;
  }
  if (isPop(cbid)) {
    const void* domain = popDomain(cbid, data);
    auto it = std::find_if(tGate.rbegin(), tGate.rend(), [&](const Gate& g) { return g.domain == domain; });
    if (it == tGate.rend()) return on;  // a pop with no push: the recorder counts it, in a window
    const bool recorded = it->recorded;
    tGate.erase(std::next(it).base());
    return recorded;
  }
  if (isStart(cbid)) {
    if (!on) return false;
    std::lock_guard<std::mutex> lock(idsMutex_);
    recordedIds_.insert(startedId(data));
    return true;
  }
  if (isEnd(cbid)) {
    std::lock_guard<std::mutex> lock(idsMutex_);
    return recordedIds_.erase(endedId(cbid, data)) != 0;
  }
  if (isMark(cbid)) return on;
  return true;  // domains, registered strings, names of threads, streams and devices
}

}  // namespace cuptitrace
