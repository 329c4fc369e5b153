// cupti_taken: the program holds CUPTI itself (as a profiler inside it would)
// before CUDA starts, then does some work and exits with code 3. Under the
// tracer, tracing must step aside with one message and leave the exit code.
#include <cupti.h>

#include <cstdio>

#include "sample_common.h"

__global__ void touch(int* p) { p[threadIdx.x] = threadIdx.x; }

static void CUPTIAPI ignore(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

int main() {
  CUpti_SubscriberHandle subscriber = nullptr;
  // Named, as a tool does with CUPTI 13: the tracer's message must say who holds CUPTI.
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "cupti_taken sample";
  const CUptiResult status = cuptiSubscribe_v2(&subscriber, ignore, nullptr, &params);
  std::printf("cupti_taken: own cuptiSubscribe_v2 -> %d\n", static_cast<int>(status));
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("cupti_taken: no GPU\n");
    return sample::kExitSkip;
  }
  int* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
  touch<<<1, 32>>>(d);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(d));
  std::printf("EXPECT exit_code=3\n");
  return 3;
}
