// The launch-bound loop: N tiny kernels over 4 streams. Prints the time per
// launch of the loop alone (no start-up, no exit), which is what a tracer's
// per-launch cost shows in.
//   launch_loop [N] [threads=T] [alternate=P] [work=W]     N default 200000
//
// With work=W, each kernel is W chains of FMAs on every SM (a block of 256
// threads per SM) instead of a tiny one: the loop is bound by the GPU, not by the
// launches, so what slows kernels on the GPU shows in the time per launch.
//
// With threads=T, T host threads launch at once, N/T kernels each on a stream
// of their own, each launch inside an NVTX range of the thread's own: what a
// tracer's shared locks cost shows in the time per launch (the loop's wall
// time over all N launches).
//
// With alternate=P, the N launches go in P pairs of blocks, one block with
// collection on (between cudaProfilerStart and cudaProfilerStop) and one
// off, alternating which comes first: the median of the pairs' ratios
// on/off compares the two inside one process, where the machine's speed from
// one process to the next cancels out (scripts/bench-alternate.sh).
//
// Last it prints the wall-clock time at which it returns from main, so that
// the delay from there to the end of the process can be measured.
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <time.h>

__global__ void tiny(int* p) {
  if (threadIdx.x == 0) p[blockIdx.x] += 1;
}

__global__ void busy(int* p, int work) {
  float x = static_cast<float>(threadIdx.x);
  for (int i = 0; i < work; ++i) x = fmaf(x, 0.999f, 0.5f);
  if (x == 0.f) atomicAdd(p, 1);  // never: keeps the chain
}

namespace {

// Whole positive number, or 0 when `text` is not one.
long positive(const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && v > 0 ? v : 0;
}

bool check(const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return true;
  std::fprintf(stderr, "launch_loop: %s: %s\n", what, cudaGetErrorString(err));
  return false;
}

int gWork = 0;     // work=W: the busy kernel instead of the tiny one
int gBlocks = 1;  // its blocks: one per SM

// Seconds for `n` launches over the streams, the GPU's work included.
double timedLaunches(long n, cudaStream_t* streams, int kStreams, int* d) {
  const auto t0 = std::chrono::steady_clock::now();
  if (gWork > 0) {
    for (long i = 0; i < n; ++i) busy<<<gBlocks, 256, 0, streams[i % kStreams]>>>(d, gWork);
  } else {
    for (long i = 0; i < n; ++i) tiny<<<1, 32, 0, streams[i % kStreams]>>>(d);
  }
  cudaDeviceSynchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int singleThread(long n) {
  constexpr int kStreams = 4;
  cudaStream_t streams[kStreams];
  for (auto& s : streams) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(int));
  timedLaunches(1000, streams, kStreams, d);  // warm-up
  const double us = timedLaunches(n, streams, kStreams, d) * 1e6;
  std::printf("launch_loop: %ld launches, %.3f us per launch\n", n, us / static_cast<double>(n));
  return check("the loop") ? 0 : 1;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

int alternating(long n, int pairs) {
  constexpr int kStreams = 4;
  cudaStream_t streams[kStreams];
  for (auto& s : streams) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(int));
  const long block = std::max(n / (2L * pairs), 1L);
  auto run = [&](bool on) {
    if (on) cudaProfilerStart();
    const double s = timedLaunches(block, streams, kStreams, d);
    if (on) cudaProfilerStop();
    return s;
  };
  timedLaunches(1000, streams, kStreams, d);  // warm-up
  run(true);  // the first window's set-up passes untimed
  run(false);
  std::vector<double> on, off, ratio;
  for (int i = 0; i < pairs; ++i) {
    const bool onFirst = i % 2 == 0;
    const double a = run(onFirst);
    const double b = run(!onFirst);
    on.push_back(onFirst ? a : b);
    off.push_back(onFirst ? b : a);
    ratio.push_back(on.back() / off.back());
  }
  const double perLaunch = 1e6 / static_cast<double>(block);
  std::printf("launch_loop: alternate %d pairs of %ld launches, on %.4f us, off %.4f us per launch, on/off %.4f\n",
              pairs, block, median(on) * perLaunch, median(off) * perLaunch, median(ratio));
  return check("the loop") ? 0 : 1;
}

int manyThreads(long n, int threads) {
  const long each = n / threads;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> failed{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      cudaStream_t stream;
      int* d = nullptr;
      if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
          cudaMalloc(&d, 64 * sizeof(int)) != cudaSuccess) {
        failed = true;
      }
      // Each thread's own range names, as a program's threads would have.
      const std::string range = "launch thread " + std::to_string(t);
      for (int i = 0; i < 100 && !failed; ++i) tiny<<<1, 32, 0, stream>>>(d);  // warm-up
      cudaStreamSynchronize(stream);
      ++ready;
      while (!go.load()) std::this_thread::yield();
      for (long i = 0; i < each && !failed; ++i) {
        nvtxRangePushA(range.c_str());
        tiny<<<1, 32, 0, stream>>>(d);
        nvtxRangePop();
      }
      cudaStreamSynchronize(stream);
      if (!check("a thread's loop")) failed = true;
      cudaFree(d);
      cudaStreamDestroy(stream);
    });
  }
  while (ready.load() < threads && !failed) std::this_thread::yield();
  const auto t0 = std::chrono::steady_clock::now();
  go = true;
  for (auto& th : pool) th.join();
  const auto t1 = std::chrono::steady_clock::now();
  if (failed) return 1;
  const long total = each * threads;
  const double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  std::printf("launch_loop: %ld launches from %d threads, %.3f us per launch\n", total, threads,
              us / static_cast<double>(total));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 200000;
  int threads = 0;
  int pairs = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "work=", 5) == 0) {
      const long w = positive(argv[i] + 5);
      if (w == 0 || w > 100000000) {
        std::fprintf(stderr, "launch_loop: work must be a whole number from 1 to 100000000\n");
        return 2;
      }
      gWork = static_cast<int>(w);
    } else if (std::strncmp(argv[i], "alternate=", 10) == 0) {
      const long p = positive(argv[i] + 10);
      if (p == 0 || p > 100000) {
        std::fprintf(stderr, "launch_loop: alternate must be a whole number from 1 to 100000\n");
        return 2;
      }
      pairs = static_cast<int>(p);
    } else if (std::strncmp(argv[i], "threads=", 8) == 0) {
      const long t = positive(argv[i] + 8);
      if (t == 0 || t > 1024) {
        std::fprintf(stderr, "launch_loop: threads must be a whole number from 1 to 1024\n");
        return 2;
      }
      threads = static_cast<int>(t);
    } else if ((n = positive(argv[i])) == 0) {
      std::fprintf(stderr, "launch_loop: N must be positive\n");
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "launch_loop: no GPU\n");
    return 77;
  }
  if (threads > 0 && n < threads) {
    std::fprintf(stderr, "launch_loop: N must be at least the number of threads\n");
    return 2;
  }
  cudaDeviceGetAttribute(&gBlocks, cudaDevAttrMultiProcessorCount, 0);
  const int status = pairs > 0     ? alternating(n, pairs)
                     : threads > 0 ? manyThreads(n, threads)
                                   : singleThread(n);
  // When the program's exit begins (wall clock): what comes after it, a
  // tracer writing its trace included, is the exit delay scripts/bench.sh reports.
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  std::printf("launch_loop: exit at %lld ns\n",
              static_cast<long long>(now.tv_sec) * 1000000000ll + now.tv_nsec);
  std::fflush(stdout);
  return status;
}
