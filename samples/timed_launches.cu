// timed_launches: one thread launches small kernels on a stream without end,
// and about every 10 ms waits for them (cudaStreamSynchronize) and prints
// `t_ms=T completed=N`: at CLOCK_MONOTONIC time T (ms) the first N kernels it
// launched had all run. A test that kills it at time K (SIGKILL, the same
// clock) knows what the journal must hold: every kernel completed at least a
// bound before K (tests/gpu/kill_bound.sh).
//
// usage: timed_launches [seconds before it ends by itself (default 60)] [kernels per 10 ms]
// Without the second argument it launches as fast as it can; with it, that many
// kernels each 10 ms (a slow stream, whose chunks take seconds to fill).
#include <time.h>

#include <cstdio>

#include "sample_common.h"

namespace {

__global__ void spin(int* p, int rounds) {
  int v = p[threadIdx.x];
  for (int i = 0; i < rounds; ++i) v = v * 1664525 + 1013904223;
  if (v == 42) p[threadIdx.x] = v;  // almost never: keeps the loop from being optimised away
}

long long monotonicMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

int main(int argc, char** argv) {
  const int seconds = sample::positiveArg(argc, argv, 1, 60, 3600, "seconds");
  const int perTick = sample::positiveArg(argc, argv, 2, 0, 100000, "kernels per 10 ms");
  sample::requireGpuAndWarmUp(argv[0]);
  cudaStream_t stream;
  int* d = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
  const long long start = monotonicMs();
  const long long end = start + 1000LL * seconds;
  long long launched = 0;
  // Flushed each line: the test reads them while the program runs.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("t_ms=%lld completed=0\n", start);
  for (long long now = start; now < end;) {
    const long long until = now + 10;
    if (perTick > 0) {
      for (int i = 0; i < perTick; ++i) spin<<<1, 32, 0, stream>>>(d, 2000);
      CHECK_LAUNCH();
      launched += perTick;
      while (monotonicMs() < until) {
      }
    }
    while (perTick == 0 && monotonicMs() < until) {
      for (int i = 0; i < 16; ++i) spin<<<1, 32, 0, stream>>>(d, 2000);
      CHECK_LAUNCH();
      launched += 16;
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));
    // Read after the wait returned: every kernel launched so far ran before it.
    now = monotonicMs();
    std::printf("t_ms=%lld completed=%lld\n", now, launched);
  }
  CHECK_CUDA(cudaFree(d));
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("EXPECT kernels=%lld\n", launched);
  return 0;
}
