// The evaluation of GPU metric samples, behind the sampling thread: queued,
// bounded, evaluated on a thread of its own or by the pusher when the queue
// is full, and handed on in the order of decodes whatever order they were
// evaluated in.
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "collectors/pm_evaluator.h"

using namespace cuptitrace;

namespace {

// Every metric evaluates to the sample's index; the first image evaluated
// may be held until released.
class HeldImage final : public PmImage {
 public:
  HeldImage(std::atomic<bool>* hold, std::atomic<int>* held) : hold_(hold), held_(held) {}
  bool evaluate(size_t index, std::vector<double>& values) override {
    if (hold_ != nullptr && hold_->load()) {
      ++*held_;
      while (hold_->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    values.assign(2, static_cast<double>(index));
    return true;
  }
  uint64_t bytes() const override { return 4096; }

 private:
  std::atomic<bool>* hold_;
  std::atomic<int>* held_;
};

PmBatch batch(uint64_t first, size_t n, std::atomic<bool>* hold = nullptr, std::atomic<int>* held = nullptr) {
  PmBatch b;
  for (size_t i = 0; i < n; ++i) {
    GpuMetricRecord r{};
    r.start = first + i * 100;
    r.end = r.start + 100;
    b.records.push_back(r);
    b.index.push_back(i);
  }
  b.scale = {1.0, 2.0};
  b.image = std::make_unique<HeldImage>(hold, held);
  return b;
}

}  // namespace

TEST_CASE("pm evaluator: a full queue is evaluated by the pusher, and the records keep their order") {
  PmEvaluator e;
  e.start();
  std::atomic<bool> hold{true};
  std::atomic<int> held{0};
  e.push(batch(1'000, 5, &hold, &held));  // the thread takes it and is held
  for (int i = 0; i < 200 && held.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(held.load() == 1);
  uint64_t at = 2'000;
  for (size_t i = 0; i < PmEvaluator::kMaxQueued; ++i, at += 1'000) e.push(batch(at, 5));
  CHECK(e.bytesInMemory() >= PmEvaluator::kMaxQueued * 4096);
  e.push(batch(at, 5));  // no room: evaluated here, now, ahead of the ones queued
  CHECK(e.evaluatedInline() == 1);
  CHECK(e.maxQueued() == PmEvaluator::kMaxQueued);
  TraceStore early;
  e.collect(early);
  CHECK(early.count(RecordKind::GpuMetric) == 0);  // it waits for the older batches
  hold = false;
  REQUIRE(e.stop(5'000'000'000));
  TraceStore store;
  e.collect(store);
  const auto& records = store.records<GpuMetricRecord>();
  REQUIRE(records.size() == 5 * (PmEvaluator::kMaxQueued + 2));
  for (size_t i = 1; i < records.size(); ++i) CHECK(records[i].start > records[i - 1].start);
  CHECK(records[3].values[0] == Approx(3));
  CHECK(records[3].values[1] == Approx(6));  // scaled
  CHECK(e.bytesInMemory() == 0);
  CHECK(e.dropped() == 0);
  CHECK(e.cpuNs() > 0);
}

TEST_CASE("pm evaluator: without its thread, batches wait for stop and are evaluated there") {
  PmEvaluator e;
  e.push(batch(1'000, 3));
  e.push(batch(2'000, 3));
  TraceStore before;
  e.collect(before);
  CHECK(before.count(RecordKind::GpuMetric) == 0);
  REQUIRE(e.stop(1'000'000'000));
  e.push(batch(3'000, 3));  // after stop: evaluated by the pusher at once
  TraceStore store;
  e.collect(store);
  const auto& records = store.records<GpuMetricRecord>();
  REQUIRE(records.size() == 9);
  CHECK(records[0].start == 1'000);
  CHECK(records[8].start == 3'200);
  CHECK(e.evaluatedInline() == 0);
}
