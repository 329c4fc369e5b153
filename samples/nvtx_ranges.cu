// nvtx_ranges: every NVTX feature the tracer records, around kernels on an
// NVTX-named stream:
//   - push/pop ranges nested 3 deep (several times), one with color, category
//     and payload (nvtxRangePushEx), one with a wide-string message, one in a
//     custom domain;
//   - start/end ranges, two of them overlapping without nesting, and one
//     started on the main thread and ended on another;
//   - marks (nvtxMarkA, nvtxMarkEx);
//   - names: the stream "compute-stream", the main thread "main-loop", a category.
// The EXPECT line counts every push (pushpop), every start (startend) and
// every mark (marks), whatever their domain.
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <thread>

#include "sample_common.h"

namespace {

constexpr const char* kStreamName = "compute-stream";
constexpr const char* kThreadName = "main-loop";
constexpr uint32_t kCategory = 7;

// d[i] = (reset ? 0 : d[i]) + 1: after k launches every element equals k.
__global__ void bump(int* d, int n, int reset) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = (reset ? 0 : d[i]) + 1;
}

nvtxEventAttributes_t attributes(const char* message, uint32_t argb, uint64_t payload) {
  nvtxEventAttributes_t a = {};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = argb;
  a.category = kCategory;
  a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  a.payload.ullValue = payload;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  return a;
}

}  // namespace

int main(int, char** argv) {
  sample::requireGpuAndWarmUp(argv[0]);

  int pushes = 0, starts = 0, marks = 0, kernels = 0, copies = 0;

  nvtxNameOsThreadA(static_cast<uint32_t>(syscall(SYS_gettid)), kThreadName);
  nvtxNameCategoryA(kCategory, "sample-category");
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  nvtxNameCudaStreamA(stream, kStreamName);

  const int n = 1 << 16;
  const int block = 256, grid = (n + block - 1) / block;
  int* d = nullptr;
  int* h = nullptr;
  CHECK_CUDA(cudaMalloc(&d, n * sizeof(int)));
  CHECK_CUDA(cudaMallocHost(&h, n * sizeof(int)));
  auto launch = [&] {
    bump<<<grid, block, 0, stream>>>(d, n, kernels == 0);
    CHECK_LAUNCH();
    ++kernels;
  };

  // Nested push/pop, depth 3, one kernel in the innermost range each round.
  for (int round = 0; round < 4; ++round) {
    nvtxRangePushA("outer");
    nvtxRangePushA("middle");
    nvtxRangePushA("inner");
    pushes += 3;
    launch();
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangePop();
    nvtxMarkA("round done");
    ++marks;
  }

  // Color + category + payload.
  const nvtxEventAttributes_t colored = attributes("colored-range", 0xff76b900u, 42);
  nvtxRangePushEx(&colored);
  ++pushes;
  launch();
  nvtxRangePop();

  // A wide-string message with characters outside ASCII.
  nvtxRangePushW(L"wide-range-\u00e9\u4e2d");
  ++pushes;
  nvtxRangePop();

  // A range in a custom domain.
  nvtxDomainHandle_t domain = nvtxDomainCreateA("cuptitrace-sample");
  const nvtxEventAttributes_t inDomain = attributes("domain-range", 0xff0000ffu, 7);
  nvtxDomainRangePushEx(domain, &inDomain);
  ++pushes;
  launch();
  nvtxDomainRangePop(domain);

  // Start/end ranges: a plain one, two that overlap without nesting, one that
  // ends on another thread.
  const nvtxRangeId_t plain = nvtxRangeStartA("start-end");
  ++starts;
  launch();
  nvtxRangeEnd(plain);
  const nvtxRangeId_t first = nvtxRangeStartA("overlap-1");
  const nvtxRangeId_t second = nvtxRangeStartA("overlap-2");
  starts += 2;
  nvtxRangeEnd(first);
  nvtxRangeEnd(second);
  const nvtxRangeId_t crossing = nvtxRangeStartA("cross-thread");
  ++starts;
  std::thread ender([crossing] { nvtxRangeEnd(crossing); });
  ender.join();

  const nvtxEventAttributes_t markAttr = attributes("colored-mark", 0xffff0000u, 1);
  nvtxMarkEx(&markAttr);
  nvtxMarkA("before copy");
  marks += 2;

  nvtxRangePushA("copy-back");
  ++pushes;
  CHECK_CUDA(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
  ++copies;
  CHECK_CUDA(cudaStreamSynchronize(stream));
  nvtxRangePop();

  for (int i = 0; i < n; ++i) {
    if (h[i] != kernels) {
      std::fprintf(stderr, "nvtx_ranges: element %d is %d, expected %d\n", i, h[i], kernels);
      return 1;
    }
  }
  nvtxDomainDestroy(domain);
  CHECK_CUDA(cudaFreeHost(h));
  CHECK_CUDA(cudaFree(d));
  CHECK_CUDA(cudaStreamDestroy(stream));

  std::printf("nvtx_ranges: ok\n");
  std::printf(
      "EXPECT kernels=%d memcpy=%d memset=0 launch_calls=%d memcpy_HtoD=0 memcpy_DtoH=%d "
      "memcpy_DtoD=0 memcpy_HtoH=0 memcpy_pageable=0 memcpy_pinned=%d nvtx_pushpop=%d "
      "nvtx_startend=%d nvtx_marks=%d nvtx_depth=3 threads=1 streams=1 graph_launches=0 "
      "named_stream=%s named_thread=%s\n",
      kernels, copies, kernels + copies, copies, copies, pushes, starts, marks, kStreamName,
      kThreadName);
  return 0;
}
