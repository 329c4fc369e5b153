// graph_branches: a CUDA graph of B parallel branches, each one kernel that
// spins for a different time (branch b for about (b + 1) * 20 us), between a
// root kernel and a join kernel, captured from one stream with events
// forking onto side streams and joining back, instantiated once and launched
// R times into that one stream.
//
// The branches of one launch run at the same time on the launch's stream:
// what the timeline draws on lanes of that stream (tests/gpu/lanes.sh).
// Each launch runs B + 2 kernels, all correlated with its cudaGraphLaunch.
// The result (how many kernels ran) is read through mapped pinned memory.
//
// usage: graph_branches [branches (default 6)] [launches (default 20)]
#include <cstdio>
#include <vector>

#include "sample_common.h"

namespace {

// Spins for about `ns` nanoseconds of the GPU's global timer, then counts itself.
__global__ void spin(unsigned long long ns, int* ran) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  unsigned long long now = start;
  while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  if (threadIdx.x == 0) atomicAdd(ran, 1);
}

}  // namespace

int main(int argc, char** argv) {
  const int branches = sample::positiveArg(argc, argv, 1, 6, 64, "branches");
  const int launches = sample::positiveArg(argc, argv, 2, 20, 100000, "launches");
  sample::requireGpuAndWarmUp(argv[0]);

  int* mapped = nullptr;
  CHECK_CUDA(cudaHostAlloc(&mapped, sizeof(int), cudaHostAllocMapped));
  *mapped = 0;
  int* ran = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&ran), mapped, 0));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<cudaStream_t> side(branches);
  std::vector<cudaEvent_t> forked(branches), joined(branches);
  for (int b = 0; b < branches; ++b) {
    CHECK_CUDA(cudaStreamCreateWithFlags(&side[b], cudaStreamNonBlocking));
    CHECK_CUDA(cudaEventCreateWithFlags(&forked[b], cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&joined[b], cudaEventDisableTiming));
  }

  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  spin<<<1, 32, 0, stream>>>(5000, ran);  // root
  CHECK_LAUNCH();
  for (int b = 0; b < branches; ++b) {
    CHECK_CUDA(cudaEventRecord(forked[b], stream));
    CHECK_CUDA(cudaStreamWaitEvent(side[b], forked[b], 0));
    spin<<<1, 32, 0, side[b]>>>(20000ull * (b + 1), ran);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaEventRecord(joined[b], side[b]));
  }
  for (int b = 0; b < branches; ++b) CHECK_CUDA(cudaStreamWaitEvent(stream, joined[b], 0));
  spin<<<1, 32, 0, stream>>>(5000, ran);  // join
  CHECK_LAUNCH();
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  for (int r = 0; r < launches; ++r) CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  const int kernels = launches * (branches + 2);
  if (*mapped != kernels) {
    std::fprintf(stderr, "graph_branches: %d kernels ran, expected %d\n", *mapped, kernels);
    return 1;
  }
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  for (int b = 0; b < branches; ++b) {
    CHECK_CUDA(cudaEventDestroy(forked[b]));
    CHECK_CUDA(cudaEventDestroy(joined[b]));
    CHECK_CUDA(cudaStreamDestroy(side[b]));
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFreeHost(mapped));
  std::printf("EXPECT kernels=%d graph_launches=%d branches=%d\n", kernels, launches, branches);
  return 0;
}
