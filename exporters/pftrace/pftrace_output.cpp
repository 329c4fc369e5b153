// The .pftrace writer's output (Output, pftrace_wire.h): its bytes go to the
// stream a MiB at a time, on the encoding thread or, with a thread to spare,
// on one of their own. Two buffers take turns: the encoder fills one while
// the other is written, so encoding never waits for the disk unless the disk
// is the slower of the two. The bytes and their order are the same either way.
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include "core/ordered_work.h"
#include "exporters/pftrace/pftrace_wire.h"

namespace cuptitrace::pftrace {

class Output::StreamThread {
 public:
  explicit StreamThread(std::ostream& out) : out_(out) {
    pending_.reserve(kFlushBytes + (64 << 10));
    thread_ = std::thread([this] { run(); });
  }
  ~StreamThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  // Hands `b`'s bytes over, once the ones handed before are written; `b`
  // comes back empty (the buffer written last, cleared).
  void hand(ProtoWriter& b) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !full_; });
    rethrow();
    pending_.swap(b);
    b.clear();
    full_ = true;
    lock.unlock();
    changed_.notify_all();
  }
  // Waits until every byte handed over is written.
  void drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !full_; });
    rethrow();
  }

 private:
  void run() {
    const OwnThread own("trace writer");
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return full_ || done_; });
      if (!full_) return;  // done, and nothing left
      lock.unlock();
      std::exception_ptr error;
      try {  // a stream may throw (its exceptions mask): the encoding thread gets it
        out_.write(reinterpret_cast<const char*>(pending_.data()),
                   static_cast<std::streamsize>(pending_.size()));
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error && !error_) error_ = error;
      full_ = false;
      changed_.notify_all();
    }
  }

  // What writing threw, thrown again on the encoding thread (once).
  void rethrow() {
    if (!error_) return;
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }

  std::ostream& out_;
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable changed_;
  ProtoWriter pending_;  // the bytes being written, while full_
  bool full_ = false;
  bool done_ = false;
  std::thread thread_;
};

Output::Output(std::ostream& out, bool background) : out_(out) {
  b.reserve(kFlushBytes + (64 << 10));
  if (!background) return;
  try {
    thread_ = std::make_unique<StreamThread>(out);
  } catch (const std::system_error&) {
    // No thread to be had: the encoding thread writes.
  }
}

Output::~Output() = default;

void Output::flush() {
  stats.bytes += b.size();
  if (thread_) {
    if (!b.empty()) thread_->hand(b);
    return;
  }
  out_.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  b.clear();
}

void Output::finish() {
  flush();
  if (thread_) thread_->drain();
}

}  // namespace cuptitrace::pftrace
