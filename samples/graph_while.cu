// graph_while: a CUDA graph whose top level is one conditional while node
// (CUDA 12.4+), as cuda-samples' graphConditionalNodes builds its do-while
// graph: the handle's default value is 1, so the body runs at least once;
// the body is two empty kernels and a counting kernel that clears the
// condition when a counter reaches zero. Launched L times, each launch
// running I iterations: 3 x I kernels a launch, every one of them a body's,
// so no kernel carries the launch's correlation id (CUPTI gives a
// conditional node's body id 0): the timeline must still draw each one's
// arrow from its cudaGraphLaunch (timeline/graph_bodies.h;
// tests/gpu/graph_while.sh).
//
// usage: graph_while [iterations (default 10)] [launches (default 2)]
#include <cstdio>

#include "sample_common.h"

namespace {

__global__ void whileEmptyKernel(int* ran) {
  if (threadIdx.x == 0) atomicAdd(ran, 1);
}

__global__ void whileLoopKernel(int* counter, cudaGraphConditionalHandle handle, int* ran) {
  if (threadIdx.x != 0) return;
  atomicAdd(ran, 1);
  if (--*counter == 0) cudaGraphSetConditional(handle, 0);
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = sample::positiveArg(argc, argv, 1, 10, 100000, "iterations");
  const int launches = sample::positiveArg(argc, argv, 2, 2, 1000, "launches");
  sample::requireGpuAndWarmUp(argv[0]);
  int driver = 0;
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  if (driver < 12040) {
    std::printf("SKIP graph_while: conditional while nodes need CUDA 12.4 (driver gives %d)\n", driver);
    return sample::kExitSkip;
  }

  // The counters, in mapped pinned memory: the host sets them, the kernels count.
  int* mapped = nullptr;
  CHECK_CUDA(cudaHostAlloc(&mapped, 2 * sizeof(int), cudaHostAllocMapped));
  int* device = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), mapped, 0));
  int* counter = device;
  int* ran = device + 1;
  mapped[1] = 0;

  cudaGraph_t graph;
  CHECK_CUDA(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle handle;
  CHECK_CUDA(cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams params = {};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = cudaGraphCondTypeWhile;
  params.conditional.size = 1;
  cudaGraphNode_t whileNode;
  CHECK_CUDA(cudaGraphAddNode(&whileNode, graph, nullptr, nullptr, 0, &params));
  cudaGraph_t body = params.conditional.phGraph_out[0];

  // The body, captured from a stream into the node's graph.
  cudaStream_t capture;
  CHECK_CUDA(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamBeginCaptureToGraph(capture, body, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
  whileEmptyKernel<<<1, 32, 0, capture>>>(ran);
  CHECK_LAUNCH();
  whileEmptyKernel<<<1, 32, 0, capture>>>(ran);
  CHECK_LAUNCH();
  whileLoopKernel<<<1, 32, 0, capture>>>(counter, handle, ran);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaStreamEndCapture(capture, nullptr));
  CHECK_CUDA(cudaStreamDestroy(capture));

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int l = 0; l < launches; ++l) {
    mapped[0] = iterations;
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
  }

  const int kernels = 3 * iterations * launches;
  if (mapped[1] != kernels) {
    std::fprintf(stderr, "graph_while: %d kernels ran, expected %d\n", mapped[1], kernels);
    return 1;
  }
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFreeHost(mapped));
  std::printf("EXPECT kernels=%d graph_launches=%d iterations=%d\n", kernels, launches, iterations);
  return 0;
}
