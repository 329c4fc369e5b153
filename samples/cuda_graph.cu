// cuda_graph: captures memset -> kernel -> kernel -> kernel on a stream into a
// CUDA graph, instantiates it once and launches it G times.
//
// Calls made while capturing (cudaMemsetAsync, the launches) only record graph
// nodes: they run nothing and are not counted. Each cudaGraphLaunch runs 3
// kernels and 1 memset, all correlated with that launch call, so
// launch_calls = graph_launches = G. The result is read through mapped pinned
// memory that the last kernel writes, so the sample makes no memcpy at all.
//
// usage: cuda_graph [graph launches (default 5)]
#include <cstdio>

#include "sample_common.h"

namespace {

__global__ void addOne(int* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += 1;
}

__global__ void timesThree(int* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] *= 3;
}

__global__ void publish(const int* d, int* hostMapped, int n, int* launches) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) hostMapped[i] = d[i];
  if (i == 0) *launches += 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int graphLaunches = sample::positiveArg(argc, argv, 1, 5, 100000, "graph launches");
  sample::requireGpuAndWarmUp(argv[0]);

  const int n = 1 << 16;
  const int block = 256, grid = (n + block - 1) / block;
  int* d = nullptr;
  int* mapped = nullptr;  // mapped pinned memory: [0, n) results, [n] launch count
  CHECK_CUDA(cudaMalloc(&d, n * sizeof(int)));
  CHECK_CUDA(cudaHostAlloc(&mapped, (n + 1) * sizeof(int), cudaHostAllocMapped));
  for (int i = 0; i <= n; ++i) mapped[i] = -1;
  mapped[n] = 0;
  int* mappedOnDevice = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mappedOnDevice), mapped, 0));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaMemsetAsync(d, 0, n * sizeof(int), stream));
  addOne<<<grid, block, 0, stream>>>(d, n);
  CHECK_LAUNCH();
  timesThree<<<grid, block, 0, stream>>>(d, n);
  CHECK_LAUNCH();
  publish<<<grid, block, 0, stream>>>(d, mappedOnDevice, n, mappedOnDevice + n);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  for (int g = 0; g < graphLaunches; ++g) CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  if (mapped[n] != graphLaunches) {
    std::fprintf(stderr, "cuda_graph: the graph ran %d times, expected %d\n", mapped[n], graphLaunches);
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    if (mapped[i] != 3) {
      std::fprintf(stderr, "cuda_graph: element %d is %d, expected 3\n", i, mapped[i]);
      return 1;
    }
  }
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFreeHost(mapped));
  CHECK_CUDA(cudaFree(d));

  std::printf("cuda_graph: %d launches of a 4-node graph ok\n", graphLaunches);
  std::printf(
      "EXPECT kernels=%d memcpy=0 memset=%d launch_calls=%d graph_launches=%d nvtx_pushpop=0 "
      "nvtx_startend=0 nvtx_marks=0 threads=1\n",
      3 * graphLaunches, graphLaunches, graphLaunches, graphLaunches);
  return 0;
}
