// Work done beside the calling thread (core/side_task.h): on a thread of its
// own when asked, at once otherwise; what it throws comes back at wait().
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/side_task.h"

using cuptitrace::SideTask;

TEST_CASE("side task: beside, on another thread, done by wait()", "[side_task]") {
  std::atomic<bool> release{false};
  std::thread::id ranOn;
  bool done = false;
  SideTask task(true, [&] {
    while (!release.load()) std::this_thread::yield();  // the caller goes on meanwhile
    ranOn = std::this_thread::get_id();
    done = true;
  });
  release = true;
  task.wait();
  CHECK(done);
  CHECK(ranOn != std::this_thread::get_id());
}

TEST_CASE("side task: not beside, done before the constructor returns", "[side_task]") {
  std::thread::id ranOn;
  SideTask task(false, [&] { ranOn = std::this_thread::get_id(); });
  CHECK(ranOn == std::this_thread::get_id());
  task.wait();
}

TEST_CASE("side task: what it threw is thrown again by wait(), once", "[side_task]") {
  SideTask task(true, [] { throw std::runtime_error("disk full"); });
  CHECK_THROWS_WITH(task.wait(), "disk full");
  CHECK_NOTHROW(task.wait());
}

TEST_CASE("side task: one not waited for is waited for when it goes", "[side_task]") {
  std::atomic<int> runs{0};
  {
    SideTask task(true, [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ++runs;
    });
  }
  CHECK(runs == 1);
}
