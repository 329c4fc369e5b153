// capture_steps: 20 steps of 2 kernels each, for the capture windows other
// than the profiler's (tests/gpu/capture.sh). Step S's kernels run S blocks
// (grid_x = S in the trace), so a test tells which steps were captured.
//   capture_steps nvtx      each step is an NVTX push/pop range "step", with a
//                           nested range "inner" (capture nvtx:step@10-12)
//   capture_steps startend  each step is an NVTX start/end range "step"
//   capture_steps signal    SIGUSR2 to itself before step 5 and after step 8
//                           (capture signal); waits 300 ms after each, since
//                           the window switches on the tracer's thread
//   capture_steps time      each step is followed by 100 ms of sleep
//                           (capture time:DELAY+DURATION)
// The program's own SIGUSR2 handler counts the signals; it must run traced
// or not (the tracer's handler calls it).
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "sample_common.h"

namespace {

constexpr int kSteps = 20;
constexpr int kKernelsPerStep = 2;

volatile sig_atomic_t gSignals = 0;
void onUsr2(int) { gSignals = gSignals + 1; }

__global__ void step_kernel(int* d, int step) {
  if (threadIdx.x == 0) atomicAdd(&d[blockIdx.x], step);
}

void runStep(int* d, int step) {
  for (int k = 0; k < kKernelsPerStep; ++k) step_kernel<<<step, 32>>>(d, step);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaDeviceSynchronize());
}

void signalSelf() {
  if (::kill(::getpid(), SIGUSR2) != 0) std::perror("kill");
  ::usleep(300 * 1000);
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc == 2 ? argv[1] : "";
  const bool nvtx = std::strcmp(mode, "nvtx") == 0;
  const bool startEnd = std::strcmp(mode, "startend") == 0;
  const bool signal = std::strcmp(mode, "signal") == 0;
  const bool timed = std::strcmp(mode, "time") == 0;
  if (!nvtx && !startEnd && !signal && !timed) {
    std::fprintf(stderr, "usage: %s nvtx|startend|signal|time\n", argv[0]);
    return 2;
  }
  // Before any CUDA call, so the tracer (started at CUDA's initialization)
  // finds it and calls it after its own.
  struct sigaction sa {};
  sa.sa_handler = onUsr2;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGUSR2, &sa, nullptr);

  sample::requireGpuAndWarmUp(argv[0]);
  int* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, kSteps * sizeof(int)));
  CHECK_CUDA(cudaMemset(d, 0, kSteps * sizeof(int)));
  CHECK_CUDA(cudaDeviceSynchronize());

  for (int step = 1; step <= kSteps; ++step) {
    if (signal && step == 5) signalSelf();
    if (nvtx) {
      nvtxRangePushA("step");
      nvtxRangePushA("inner");
      runStep(d, step);
      nvtxRangePop();
      nvtxMarkA("step done");
      nvtxRangePop();
    } else if (startEnd) {
      const nvtxRangeId_t id = nvtxRangeStartA("step");
      runStep(d, step);
      nvtxRangeEnd(id);
    } else {
      runStep(d, step);
    }
    if (signal && step == 8) signalSelf();
    if (timed) ::usleep(100 * 1000);
  }

  int h[kSteps] = {};
  CHECK_CUDA(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int b = 0; b < kSteps; ++b) {
    int want = 0;
    for (int s = b + 1; s <= kSteps; ++s) want += kKernelsPerStep * s;
    if (h[b] != want) {
      std::fprintf(stderr, "capture_steps: wrong result in block %d: %d, expected %d\n", b, h[b], want);
      return 1;
    }
  }
  CHECK_CUDA(cudaFree(d));
  if (signal && gSignals != 2) {
    std::fprintf(stderr, "capture_steps: the program's SIGUSR2 handler ran %d times, expected 2\n",
                 static_cast<int>(gSignals));
    return 1;
  }
  std::printf("capture_steps %s: %d steps of %d kernels\n", mode, kSteps, kKernelsPerStep);
  std::printf("EXPECT kernels=%d memcpy=1 memset=1 launch_calls=%d nvtx_pushpop=%d nvtx_startend=%d "
              "nvtx_marks=%d threads=1 streams=1 graph_launches=0\n",
              kSteps * kKernelsPerStep, kSteps * kKernelsPerStep + 2, nvtx ? 2 * kSteps : 0,
              startEnd ? kSteps : 0, nvtx ? kSteps : 0);
  return 0;
}
