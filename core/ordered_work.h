// Work cut into pieces, done by several threads, each result handed on in
// the pieces' order: the encoders of one output each fill a buffer of their
// own, and the file gets the buffers one after the other, as one thread
// would have written them. At most `ahead` pieces are done and not yet
// handed on, so the memory held stays bounded however many pieces there are.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/own_threads.h"

namespace cuptitrace {

// The calling thread is the tracer's while this lives (core/own_threads.h):
// a fault in it is the tracer's, not the program's.
struct OwnThread {
  explicit OwnThread(const char* name) { registerOwnThread(name); }
  ~OwnThread() { unregisterOwnThread(); }
  OwnThread(const OwnThread&) = delete;
  OwnThread& operator=(const OwnThread&) = delete;
};

// Calls work(worker, piece, result) for pieces [0, pieces) on `workers`
// threads (worker in [0, workers): each worker's own state), and
// done(piece, result) on the calling thread in piece order. `Result` is
// reused: work() gets one that done() has finished with (cleared by done()
// as it needs). An exception thrown by work() or done() stops the pieces
// not yet taken and is thrown again here once every thread has ended; no
// thread to be had means fewer threads, or the calling thread alone.
template <typename Result, typename Work, typename Done>
void runInOrder(size_t pieces, unsigned workers, size_t ahead, Work&& work, Done&& done) {
  if (pieces == 0) return;
  auto serial = [&] {
    Result result;
    for (size_t i = 0; i < pieces; ++i) {
      work(0u, i, result);
      done(i, result);
    }
  };
  if (workers > pieces) workers = static_cast<unsigned>(pieces);
  if (workers <= 1) return serial();
  if (ahead < workers) ahead = workers;
  struct Slot {
    Result result;
    std::exception_ptr error;
    bool ready = false;
  };
  std::vector<Slot> slots(ahead);
  std::mutex mutex;
  std::condition_variable changed;
  size_t next = 0;     // the next piece a worker takes
  size_t handed = 0;   // pieces handed on so far
  auto run = [&](unsigned worker) {
    const OwnThread own("trace writer");
    for (;;) {
      size_t piece;
      {
        std::unique_lock<std::mutex> lock(mutex);
        // A piece's slot is free once the piece `ahead` before it is handed on.
        changed.wait(lock, [&] { return next >= pieces || next < handed + ahead; });
        if (next >= pieces) return;
        piece = next++;
      }
      Slot& slot = slots[piece % ahead];
      try {
        work(worker, piece, slot.result);
      } catch (...) {
        slot.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        slot.ready = true;
      }
      changed.notify_all();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) {
    try {
      threads.emplace_back(run, w);
    } catch (const std::system_error&) {
      break;
    }
  }
  if (threads.empty()) return serial();
  std::exception_ptr error;
  for (size_t i = 0; i < pieces && !error; ++i) {
    Slot& slot = slots[i % ahead];
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return slot.ready; });
    }
    error = slot.error;
    if (!error) {
      try {
        done(i, slot.result);
      } catch (...) {
        error = std::current_exception();
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      slot.ready = false;
      ++handed;
      if (error) next = pieces;  // the pieces not taken are left
    }
    changed.notify_all();
  }
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace cuptitrace
