// driver_launch: GPU work started through the CUDA driver API, as Triton, JAX
// and libraries start theirs: cuLaunchKernel, cuLaunchKernelEx,
// cuLaunchCooperativeKernel, cuMemsetD32Async, cuMemcpyHtoDAsync,
// cuMemcpyDtoHAsync and cuGraphLaunch of a captured graph (a memset and a
// kernel), plus one runtime launch. Under the default activities every
// kernel, copy and set must have an arrow from the call that started it.
//
// The kernel is this file's own, reached as a CUfunction through
// cudaGetFuncBySymbol. Each call that starts work has its own correlation id,
// so launch_calls counts those calls (a graph launch once, for both of its
// nodes); allocations, streams and graph building start no work. Cooperative
// launches are left out on a device that cannot make them.
//
// usage: driver_launch [launches of each driver kind (default 4)] [graph launches (default 3)]
#include <cuda.h>

#include <cstdio>
#include <vector>

#include "sample_common.h"

namespace {

__global__ void addOne(unsigned* d, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += 1;
}

bool driverOk(CUresult r, const char* what, int line) {
  if (r == CUDA_SUCCESS) return true;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "driver_launch.cu:%d: %s failed: %s\n", line, what, name ? name : "?");
  return false;
}

}  // namespace

#define CHECK_CU(call)                                    \
  do {                                                    \
    if (!driverOk((call), #call, __LINE__)) std::exit(1); \
  } while (0)

int main(int argc, char** argv) {
  const int launches = sample::positiveArg(argc, argv, 1, 4, 10000, "launches");
  const int graphLaunches = sample::positiveArg(argc, argv, 2, 3, 10000, "graph launches");
  sample::requireGpuAndWarmUp(argv[0]);

  cudaFunction_t rtFunc = nullptr;
  CHECK_CUDA(cudaGetFuncBySymbol(&rtFunc, reinterpret_cast<const void*>(addOne)));
  CUfunction fn = reinterpret_cast<CUfunction>(rtFunc);
  CUdevice dev;
  CHECK_CU(cuCtxGetDevice(&dev));
  int cooperative = 0;
  CHECK_CU(cuDeviceGetAttribute(&cooperative, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev));

  const unsigned n = 1u << 16;
  const size_t bytes = n * sizeof(unsigned);
  const unsigned block = 256, grid = (n + block - 1) / block;
  CUdeviceptr d = 0;
  CHECK_CU(cuMemAlloc(&d, bytes));
  unsigned* host = nullptr;
  CHECK_CU(cuMemAllocHost(reinterpret_cast<void**>(&host), bytes));
  CUstream s;
  CHECK_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

  for (unsigned i = 0; i < n; ++i) host[i] = 7;
  int calls = 0, kernels = 0, memsets = 0;
  CHECK_CU(cuMemsetD32Async(d, 0, n, s));  // overwritten by the copy: checks the order too
  ++calls, ++memsets;
  CHECK_CU(cuMemcpyHtoDAsync(d, host, bytes, s));
  ++calls;
  unsigned count = n;
  void* args[] = {&d, &count};
  for (int i = 0; i < launches; ++i) {
    CHECK_CU(cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, s, args, nullptr));
    ++calls, ++kernels;
  }
  CUlaunchConfig config = {};
  config.gridDimX = grid, config.gridDimY = 1, config.gridDimZ = 1;
  config.blockDimX = block, config.blockDimY = 1, config.blockDimZ = 1;
  config.hStream = s;
  for (int i = 0; i < launches; ++i) {
    CHECK_CU(cuLaunchKernelEx(&config, fn, args, nullptr));
    ++calls, ++kernels;
  }
  if (cooperative) {
    for (int i = 0; i < launches; ++i) {
      CHECK_CU(cuLaunchCooperativeKernel(fn, grid, 1, 1, block, 1, 1, 0, s, args));
      ++calls, ++kernels;
    }
  }
  // One runtime launch: both APIs' arrows in one trace.
  addOne<<<grid, block, 0, reinterpret_cast<cudaStream_t>(s)>>>(reinterpret_cast<unsigned*>(d), n);
  CHECK_LAUNCH();
  ++calls, ++kernels;

  // A graph captured from driver calls (a set of a scratch buffer, a kernel on
  // the data), launched with cuGraphLaunch: each launch runs both nodes.
  CUdeviceptr scratch = 0;
  CHECK_CU(cuMemAlloc(&scratch, bytes));
  CUgraph graph;
  CUgraphExec exec;
  CHECK_CU(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CHECK_CU(cuMemsetD32Async(scratch, 0, n, s));
  CHECK_CU(cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, s, args, nullptr));
  CHECK_CU(cuStreamEndCapture(s, &graph));
  CHECK_CU(cuGraphInstantiate(&exec, graph, 0));
  for (int g = 0; g < graphLaunches; ++g) {
    CHECK_CU(cuGraphLaunch(exec, s));
    ++calls, ++kernels, ++memsets;
  }
  CHECK_CU(cuMemcpyDtoHAsync(host, d, bytes, s));
  ++calls;
  CHECK_CU(cuStreamSynchronize(s));

  const unsigned expected = 7u + static_cast<unsigned>(kernels);
  for (unsigned i = 0; i < n; ++i) {
    if (host[i] != expected) {
      std::fprintf(stderr, "driver_launch: element %u is %u, expected %u\n", i, host[i], expected);
      return 1;
    }
  }
  CHECK_CU(cuGraphExecDestroy(exec));
  CHECK_CU(cuGraphDestroy(graph));
  CHECK_CU(cuStreamDestroy(s));
  CHECK_CU(cuMemFreeHost(host));
  CHECK_CU(cuMemFree(scratch));
  CHECK_CU(cuMemFree(d));

  std::printf("driver_launch: %d kernels, %d sets, 2 copies through the driver API ok%s\n", kernels,
              memsets, cooperative ? "" : " (no cooperative launches on this device)");
  std::printf(
      "EXPECT kernels=%d memcpy=2 memset=%d launch_calls=%d memcpy_HtoD=1 memcpy_DtoH=1 "
      "memcpy_DtoD=0 memcpy_HtoH=0 memcpy_pageable=0 memcpy_pinned=2 nvtx_pushpop=0 "
      "nvtx_startend=0 nvtx_marks=0 threads=1 graph_launches=%d\n",
      kernels, memsets, calls, graphLaunches);
  return 0;
}
