// Work cut into pieces, done by several threads, each result handed on in
// the pieces' order: the encoders of one output each fill a buffer of their
// own, and the file gets the buffers one after the other, as one thread
// would have written them. At most `ahead` pieces are done and not yet
// handed on, so the memory held stays bounded however many pieces there are.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
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
// as it needs).
template <typename Result, typename Work, typename Done>
void runInOrder(size_t pieces, unsigned workers, size_t ahead, Work&& work, Done&& done) {
  if (pieces == 0) return;
  if (workers <= 1) {
    Result result;
    for (size_t i = 0; i < pieces; ++i) {
      work(0u, i, result);
      done(i, result);
    }
    return;
  }
  if (ahead < workers) ahead = workers;
  struct Slot {
    Result result;
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
      work(worker, piece, slot.result);
      {
        std::lock_guard<std::mutex> lock(mutex);
        slot.ready = true;
      }
      changed.notify_all();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) threads.emplace_back(run, w);
  for (size_t i = 0; i < pieces; ++i) {
    Slot& slot = slots[i % ahead];
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return slot.ready; });
    }
    done(i, slot.result);
    {
      std::lock_guard<std::mutex> lock(mutex);
      slot.ready = false;
      ++handed;
    }
    changed.notify_all();
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace cuptitrace
