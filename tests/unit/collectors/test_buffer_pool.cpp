// The CUPTI buffer pool, as CUPTI 13 uses it: one buffer per live thread
// (per-thread activity buffers), so hundreds at once, within a byte budget.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "collectors/buffer_pool.h"

using namespace cuptitrace;

namespace {
constexpr uint64_t kMiB = 1 << 20;
}

TEST_CASE("buffer pool: 256 live threads each get a buffer within the default budget", "[buffers]") {
  BufferPool pool(8 * kMiB, 4, 256 * kMiB);
  std::vector<std::pair<uint8_t*, size_t>> held;
  for (int thread = 0; thread < 256; ++thread) {
    const auto b = pool.acquire();
    REQUIRE(b.first != nullptr);
    CHECK(b.second >= BufferPool::kMinBufferBytes);
    CHECK(b.second <= 8 * kMiB);
    CHECK(b.second % 8 == 0);
    held.push_back(b);
  }
  CHECK(pool.refused() == 0);
  CHECK(pool.allocatedBytes() <= 256 * kMiB);
  CHECK(pool.inUse() == 256);
  // The first ones are full-sized: a single busy thread loses nothing.
  CHECK(held.front().second == 8 * kMiB);
  for (const auto& b : held) pool.release(b.first);
  CHECK(pool.inUse() == 0);
}

TEST_CASE("buffer pool: the budget is never passed, and refusals are counted", "[buffers]") {
  BufferPool pool(1 * kMiB, 0, 4 * kMiB);
  uint64_t got = 0, bytes = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto b = pool.acquire();
    if (b.first == nullptr) continue;
    ++got;
    bytes += b.second;
  }
  CHECK(bytes <= 4 * kMiB);
  CHECK(bytes == pool.allocatedBytes());
  CHECK(got == pool.allocated());
  CHECK(got + pool.refused() == 1000);
  CHECK(pool.refused() > 0);
  // Below the floor nothing more is made.
  CHECK(4 * kMiB - bytes < BufferPool::kMinBufferBytes);
}

TEST_CASE("buffer pool: returned buffers are reused, the largest first, with their own size", "[buffers]") {
  BufferPool pool(1 * kMiB, 0, 2 * kMiB);
  std::vector<std::pair<uint8_t*, size_t>> all;
  while (true) {
    const auto b = pool.acquire();
    if (b.first == nullptr) break;
    all.push_back(b);
  }
  const uint32_t allocated = pool.allocated();
  REQUIRE(all.size() >= 2);
  for (const auto& b : all) pool.release(b.first);
  const auto again = pool.acquire();
  size_t largest = 0;
  for (const auto& b : all) largest = std::max(largest, b.second);
  CHECK(again.second == largest);
  CHECK(pool.allocated() == allocated);  // reused, not allocated anew
  // A pointer the pool never gave out is ignored.
  int outside = 0;
  pool.release(reinterpret_cast<uint8_t*>(&outside));
  CHECK(pool.inUse() == 1);
  CHECK(pool.badReleases() == 1);
}

TEST_CASE("buffer pool: a buffer released twice is handed out once", "[buffers]") {
  BufferPool pool(256 * 1024, 2, 64 * kMiB);
  const auto a = pool.acquire();
  const auto b = pool.acquire();
  REQUIRE(a.first != nullptr);
  REQUIRE(b.first != nullptr);
  pool.release(a.first);
  pool.release(a.first);  // a second release: refused and counted
  CHECK(pool.badReleases() == 1);
  CHECK(pool.inUse() == 1);
  // Two CUPTI threads asking now must not get the same buffer.
  const auto c = pool.acquire();
  const auto d = pool.acquire();
  CHECK(c.first == a.first);
  CHECK(d.first != a.first);
  CHECK(d.first != b.first);
}

TEST_CASE("buffer pool: threads acquiring and releasing at once", "[buffers]") {
  BufferPool pool(256 * 1024, 2, 64 * kMiB);
  std::vector<std::thread> threads;
  std::atomic<uint64_t> failures{0};
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        const auto b = pool.acquire();
        if (b.first == nullptr) {
          ++failures;
          continue;
        }
        b.first[0] = 1;
        b.first[b.second - 1] = 2;
        pool.release(b.first);
      }
    });
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  CHECK(pool.inUse() == 0);
  CHECK(pool.allocatedBytes() <= 64 * kMiB);
}
