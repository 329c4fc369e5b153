// contexts_streams: streams created and destroyed in a loop, contexts created
// and destroyed in a loop, and two contexts alive at once, each running
// kernels. Every kernel must be in the trace, on the right context. One of
// the two is named with NVTX, and so is a stream of it, on which one more
// kernel runs: the timeline's track of that stream is named after both.
#include <cuda.h>
#include <nvtx3/nvToolsExtCuda.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include <cstdio>

#include "sample_common.h"

__global__ void touch(int* p) { p[threadIdx.x] += 1; }

constexpr const char* kContextName = "ctx-alpha";
constexpr const char* kStreamName = "alpha-stream";

#define CHECK_CU(call)                                                            \
  do {                                                                            \
    CUresult r = (call);                                                          \
    if (r != CUDA_SUCCESS) {                                                      \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, r); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

// Runs `n` kernels in the context current on this thread.
static int kernelsHere(int n) {
  int* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
  for (int i = 0; i < n; ++i) touch<<<1, 32>>>(d);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(d));
  return 0;
}

int main(int argc, char** argv) {
  const int streamLoops = sample::positiveArg(argc, argv, 1, 50, 100000, "stream loops");
  const int contextLoops = sample::positiveArg(argc, argv, 2, 5, 1000, "context loops");
  sample::requireGpuAndWarmUp(argv[0]);
  int kernels = 0;

  int* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
  for (int i = 0; i < streamLoops; ++i) {
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    touch<<<1, 32, 0, s>>>(d);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK_CUDA(cudaStreamDestroy(s));
    ++kernels;
  }
  CHECK_CUDA(cudaFree(d));

  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  CUcontext primary;
  CHECK_CU(cuCtxGetCurrent(&primary));
  for (int i = 0; i < contextLoops; ++i) {
    CUcontext ctx;
    CHECK_CU(cuCtxCreate(&ctx, nullptr, 0, dev));  // made current
    if (kernelsHere(2) != 0) return 1;
    kernels += 2;
    CHECK_CU(cuCtxDestroy(ctx));
  }
  // Two contexts alive at once, used in turn.
  CUcontext a, b;
  CHECK_CU(cuCtxCreate(&a, nullptr, 0, dev));
  nvtxNameCuContextA(a, kContextName);
  CHECK_CU(cuCtxCreate(&b, nullptr, 0, dev));
  for (int round = 0; round < 2; ++round) {
    CHECK_CU(cuCtxSetCurrent(a));
    if (kernelsHere(1) != 0) return 1;
    CHECK_CU(cuCtxSetCurrent(b));
    if (kernelsHere(1) != 0) return 1;
    kernels += 2;
  }
  // A named stream of the named context, with one kernel on it.
  CHECK_CU(cuCtxSetCurrent(a));
  cudaStream_t named;
  CHECK_CUDA(cudaStreamCreate(&named));
  nvtxNameCudaStreamA(named, kStreamName);
  int* onNamed = nullptr;
  CHECK_CUDA(cudaMalloc(&onNamed, 32 * sizeof(int)));
  touch<<<1, 32, 0, named>>>(onNamed);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaStreamSynchronize(named));
  CHECK_CUDA(cudaFree(onNamed));
  CHECK_CUDA(cudaStreamDestroy(named));
  ++kernels;
  CHECK_CU(cuCtxDestroy(a));
  CHECK_CU(cuCtxDestroy(b));
  CHECK_CU(cuCtxSetCurrent(primary));

  std::printf("contexts_streams: %d stream loops, %d context loops ok\n", streamLoops, contextLoops);
  // named_context and named_context_stream are read by tests/gpu/robustness.sh.
  std::printf("EXPECT kernels=%d memcpy=0 memset=0 launch_calls=%d nvtx_pushpop=0 nvtx_startend=0 "
              "nvtx_marks=0 threads=1 graph_launches=0 contexts=%d named_context=%s named_context_stream=%s\n",
              kernels, kernels, contextLoops + 3, kContextName, kStreamName);
  return 0;
}
