// segv_recover: a program that takes SIGSEGV on purpose and goes on, as JVMs,
// Julia and Go do: N times, a kernel is launched, then a null-pointer write
// faults and the program's own handler siglongjmps back. A tracer must never
// run ahead of that handler: the run ends normally, traced completely, and
// no slower than untraced.
//
// usage: segv_recover [faults (default 1000)]
#include <setjmp.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "sample_common.h"

namespace {

__global__ void touch(int* p, int i) {
  if (threadIdx.x == 0) p[0] = i;
}

sigjmp_buf gRecover;
volatile sig_atomic_t gFaults = 0;

void onSegv(int) {
  gFaults = gFaults + 1;
  siglongjmp(gRecover, 1);
}

}  // namespace

int main(int argc, char** argv) {
  const int faults = sample::positiveArg(argc, argv, 1, 1000, 1000000, "faults");
  // Installed before CUDA starts, as a runtime that takes faults does at its
  // own start: the tracer's handler, installed later, must hand every fault
  // to this one and do nothing itself.
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = onSegv;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_NODEFER;
  sigaction(SIGSEGV, &sa, nullptr);
  sample::requireGpuAndWarmUp(argv[0]);
  int* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, sizeof(int)));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < faults; ++i) {
    touch<<<1, 32>>>(d, i);
    CHECK_LAUNCH();
    if (sigsetjmp(gRecover, 1) == 0) {
      volatile int* nowhere = nullptr;
      *nowhere = i;  // faults
    }
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("segv_recover: %d faults recovered in %.1f ms\n", static_cast<int>(gFaults), ms);
  if (gFaults != faults) return 1;
  std::printf("EXPECT kernels=%d faults=%d\n", faults, faults);
  return 0;
}
