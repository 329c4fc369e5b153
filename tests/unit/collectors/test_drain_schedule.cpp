// When the drain thread flushes CUPTI and writes the journal's tails.
#include <catch2/catch.hpp>

#include <chrono>

#include "collectors/drain_schedule.h"

using namespace cuptitrace;
using std::chrono::milliseconds;

TEST_CASE("drain schedule: tails every period, each after a flush") {
  const auto t0 = DrainSchedule::Clock::now();
  DrainSchedule s(milliseconds(1000), milliseconds(300), t0);
  CHECK(s.wait(t0, milliseconds(500)) == milliseconds(300));  // woken for the tails, not later
  auto d = s.due(t0 + milliseconds(100));
  CHECK_FALSE(d.flush);
  CHECK_FALSE(d.tails);
  d = s.due(t0 + milliseconds(300));
  CHECK(d.tails);
  CHECK(d.flush);  // what CUPTI holds goes with them
  CHECK(s.wait(t0 + milliseconds(300), milliseconds(500)) == milliseconds(300));
  CHECK_FALSE(s.due(t0 + milliseconds(599)).tails);
  CHECK(s.due(t0 + milliseconds(600)).tails);
  // Late (a long drain): due at once, never a negative wait.
  CHECK(s.wait(t0 + milliseconds(5000), milliseconds(500)) == milliseconds(0));
}

TEST_CASE("drain schedule: without tails only the periodic flush") {
  const auto t0 = DrainSchedule::Clock::now();
  DrainSchedule s(milliseconds(1000), milliseconds(0), t0);
  CHECK(s.wait(t0, milliseconds(500)) == milliseconds(500));
  CHECK(s.wait(t0 + milliseconds(800), milliseconds(500)) == milliseconds(200));
  auto d = s.due(t0 + milliseconds(999));
  CHECK_FALSE(d.flush);
  d = s.due(t0 + milliseconds(1000));
  CHECK(d.flush);
  CHECK_FALSE(d.tails);
  CHECK_FALSE(s.due(t0 + milliseconds(1999)).flush);
  CHECK(s.due(t0 + milliseconds(2000)).flush);
}

TEST_CASE("drain schedule: a tail period longer than the flush's keeps both") {
  const auto t0 = DrainSchedule::Clock::now();
  DrainSchedule s(milliseconds(1000), milliseconds(2500), t0);
  auto d = s.due(t0 + milliseconds(1000));
  CHECK(d.flush);
  CHECK_FALSE(d.tails);
  d = s.due(t0 + milliseconds(2000));
  CHECK(d.flush);
  CHECK_FALSE(d.tails);
  CHECK(s.wait(t0 + milliseconds(2000), milliseconds(5000)) == milliseconds(500));
  d = s.due(t0 + milliseconds(2500));
  CHECK(d.tails);
  CHECK(d.flush);
}
