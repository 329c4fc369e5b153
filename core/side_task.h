// Work done beside the calling thread: on a thread of its own when that is
// asked for and one is to be had, else at once on the caller's. wait()
// returns once it is done and throws again what it threw; a task not waited
// for (the caller unwinding) is waited for when it is destroyed, and what it
// threw then is dropped.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "core/ordered_work.h"

namespace cuptitrace {

class SideTask {
 public:
  SideTask(bool beside, std::function<void()> work) {
    if (beside) {
      try {
        thread_ = std::thread([this, work] {
          const OwnThread own("trace writer");
          try {
            work();
          } catch (...) {
            error_ = std::current_exception();
          }
        });
        return;
      } catch (const std::system_error&) {
        // No thread to be had: done here, below.
      }
    }
    work();
  }
  ~SideTask() {
    if (thread_.joinable()) thread_.join();
  }
  SideTask(const SideTask&) = delete;
  SideTask& operator=(const SideTask&) = delete;

  void wait() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  std::exception_ptr error_;
  std::thread thread_;
};

// Waits for `task`, if there is one, and lets it go (disengaged either way);
// throws again what it threw.
inline void finishSideTask(std::optional<SideTask>& task) {
  if (!task) return;
  try {
    task->wait();
  } catch (...) {
    task.reset();
    throw;
  }
  task.reset();
}

}  // namespace cuptitrace
