// abnormal_end: launches kernels, then ends the way argv[1] says, to check that
// the trace is written and the exit status is the program's own:
//   term      kill(getpid(), SIGTERM), default action      -> killed by SIGTERM
//   int       SIGINT with the default action               -> killed by SIGINT
//   handler   SIGTERM to a handler of its own that exit(5)s -> exit status 5
//   abort     abort()                                      -> killed by SIGABRT
//   segv      a null-pointer write                         -> killed by SIGSEGV
//   thread    exit(4) from a second thread while main waits -> exit status 4
//   return    main returns 0 while a second thread still launches kernels
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "sample_common.h"

__global__ void spin(int* p, int n) {
  if (threadIdx.x == 0) p[blockIdx.x] += n;
}

constexpr int kKernels = 20;

static void ownHandler(int) { std::exit(5); }

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "term";
  // A handler of the program's own is installed before CUDA starts, as a
  // program's main usually does before any GPU work.
  if (std::strcmp(mode, "handler") == 0) std::signal(SIGTERM, ownHandler);
  sample::requireGpuAndWarmUp(argv[0]);
  int* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 64 * sizeof(int)));
  for (int i = 0; i < kKernels; ++i) spin<<<64, 32>>>(d, i);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("EXPECT kernels=%d mode=%s\n", kKernels, mode);
  std::fflush(stdout);

  if (std::strcmp(mode, "term") == 0 || std::strcmp(mode, "handler") == 0) {
    ::kill(::getpid(), SIGTERM);
  } else if (std::strcmp(mode, "int") == 0) {
    ::kill(::getpid(), SIGINT);
  } else if (std::strcmp(mode, "abort") == 0) {
    std::abort();
  } else if (std::strcmp(mode, "segv") == 0) {
    volatile int* null = nullptr;
    *null = 1;
  } else if (std::strcmp(mode, "thread") == 0) {
    std::thread([] { std::exit(4); }).join();
  } else if (std::strcmp(mode, "return") == 0) {
    // Keeps launching while main returns and the tracer writes at exit.
    std::thread([d] {
      for (;;) spin<<<1, 32>>>(d, 1);
    }).detach();
    usleep(20000);
    return 0;
  }
  sleep(5);  // a signal should have ended us before this
  std::fprintf(stderr, "abnormal_end: still alive after mode %s\n", mode);
  return 1;
}
