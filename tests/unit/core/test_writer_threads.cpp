#include <catch2/catch.hpp>

#include "core/writer_threads.h"

using namespace cuptitrace;

TEST_CASE("writer threads: a cgroup's CPU quota in whole cores", "[writer_threads]") {
  // cgroup v2's cpu.max: quota and period, or "max" for none.
  CHECK(cgroupV2QuotaCores("max 100000\n") == 0);
  CHECK(cgroupV2QuotaCores("150000 100000\n") == 2);  // rounded up
  CHECK(cgroupV2QuotaCores("400000 100000") == 4);
  CHECK(cgroupV2QuotaCores("50000 100000") == 1);
  CHECK(cgroupV2QuotaCores("") == 0);
  CHECK(cgroupV2QuotaCores("garbage") == 0);
  CHECK(cgroupV2QuotaCores("0 100000") == 0);
  CHECK(cgroupV2QuotaCores("99999999999 1") == kMaxWriterThreads);
  // cgroup v1: cpu.cfs_quota_us (-1: none) over cpu.cfs_period_us.
  CHECK(cgroupV1QuotaCores("-1\n", "100000\n") == 0);
  CHECK(cgroupV1QuotaCores("300000\n", "100000\n") == 3);
  CHECK(cgroupV1QuotaCores("250000", "100000") == 3);
  CHECK(cgroupV1QuotaCores("", "") == 0);
  // Whatever the machine, the cores are at least one and at most the bound.
  CHECK(usableCores() >= 1);
  CHECK(usableCores() <= kMaxWriterThreads);
}
