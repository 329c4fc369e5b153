// fork_children: a CUDA program with child processes (tests/gpu/children.sh).
//   fork_children fork               after CUDA and NVTX are in use, forks two
//       children: one does CPU work, one makes NVTX calls; both exit(0).
//       The parent launches kernels before, while and after they run.
//   fork_children exec PROGRAM [ARGS...]
//       forks two children that each exec PROGRAM (a CUDA program, traced on
//       its own); the parent launches kernels before and after.
// A child that has not ended after 60 s is killed and the run fails: a hang
// in a forked child is what this program looks for.
#include <nvtx3/nvToolsExt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "sample_common.h"

namespace {

constexpr int kKernelsPerBatch = 5;
constexpr int kChildWaitSeconds = 60;

__global__ void bump(int* d) {
  if (threadIdx.x == 0) atomicAdd(d, 1);
}

void launchBatch(int* d) {
  for (int k = 0; k < kKernelsPerBatch; ++k) bump<<<1, 32>>>(d);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaDeviceSynchronize());
}

// CPU work only: CUDA does not work in a child forked after it started.
[[noreturn]] void cpuChild() {
  volatile unsigned long sum = 0;
  for (unsigned long i = 0; i < 50000000ul; ++i) sum = sum + (i ^ (i >> 3));
  std::printf("fork_children: cpu child %d done\n", static_cast<int>(::getpid()));
  std::fflush(stdout);
  std::exit(0);
}

// NVTX calls in the child: they must return (not hang) and change nothing.
[[noreturn]] void nvtxChild() {
  for (int i = 0; i < 100; ++i) {
    nvtxRangePushA("child range");
    nvtxMarkA("child mark");
    const nvtxRangeId_t id = nvtxRangeStartA("child start/end");
    nvtxRangeEnd(id);
    nvtxRangePop();
  }
  std::printf("fork_children: nvtx child %d done\n", static_cast<int>(::getpid()));
  std::fflush(stdout);
  std::exit(0);
}

// Waits for a child; false when it failed, died by a signal or hung.
bool waitChild(pid_t pid, const char* what) {
  for (int i = 0; i < kChildWaitSeconds * 10; ++i) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
      std::fprintf(stderr, "fork_children: %s child %d ended with %s %d\n", what, static_cast<int>(pid),
                   WIFEXITED(status) ? "exit status" : "signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
      return false;
    }
    if (r < 0) {
      std::perror("waitpid");
      return false;
    }
    ::usleep(100 * 1000);
  }
  std::fprintf(stderr, "fork_children: %s child %d still running after %d s: killed\n", what,
               static_cast<int>(pid), kChildWaitSeconds);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return false;
}

pid_t forkOrDie() {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("fork");
    std::exit(1);
  }
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  const bool forkMode = argc == 2 && std::strcmp(argv[1], "fork") == 0;
  const bool execMode = argc >= 3 && std::strcmp(argv[1], "exec") == 0;
  if (!forkMode && !execMode) {
    std::fprintf(stderr, "usage: %s fork | exec PROGRAM [ARGS...]\n", argv[0]);
    return 2;
  }
  sample::requireGpuAndWarmUp(argv[0]);
  int* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, sizeof(int)));
  CHECK_CUDA(cudaMemset(d, 0, sizeof(int)));
  nvtxRangePushA("parent");  // NVTX is in use before the fork
  launchBatch(d);

  bool ok = true;
  int batches = 1;
  if (forkMode) {
    const pid_t cpu = forkOrDie();
    if (cpu == 0) cpuChild();
    const pid_t nvtx = forkOrDie();
    if (nvtx == 0) nvtxChild();
    launchBatch(d);  // while the children run
    ++batches;
    ok = waitChild(cpu, "cpu") && ok;
    ok = waitChild(nvtx, "nvtx") && ok;
  } else {
    pid_t children[2];
    for (pid_t& child : children) {
      child = forkOrDie();
      if (child == 0) {
        ::execv(argv[2], argv + 2);
        std::perror("execv");
        ::_exit(127);
      }
    }
    for (pid_t child : children) ok = waitChild(child, "exec'd") && ok;
  }
  launchBatch(d);
  ++batches;
  nvtxRangePop();

  int h = 0;
  CHECK_CUDA(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
  if (h != batches * kKernelsPerBatch) {
    std::fprintf(stderr, "fork_children: wrong result %d, expected %d\n", h, batches * kKernelsPerBatch);
    return 1;
  }
  CHECK_CUDA(cudaFree(d));
  if (!ok) return 1;
  std::printf("fork_children %s: parent %d, children ok\n", argv[1], static_cast<int>(::getpid()));
  std::printf("EXPECT kernels=%d memcpy=1 memset=1 launch_calls=%d nvtx_pushpop=1 threads=1 streams=1 "
              "graph_launches=0\n",
              batches * kKernelsPerBatch, batches * kKernelsPerBatch + 2);
  return 0;
}
