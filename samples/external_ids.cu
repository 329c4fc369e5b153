// external_ids: the public API (include/cuptitrace/cuptitrace.h) attributing
// GPU work to the program's own operations. The main thread pushes external
// id 1001, opens scope "outer", pushes 1002 and opens scope "inner" inside
// it, launching known kernels at each level; meanwhile a second thread
// pushes 2001 on its own stream, so ids are seen to be per thread.
//
//   kernels  external id  scope
//   1        -            -        main, before anything is pushed
//   2        1001         -
//   1        1001         outer
//   2        2001         -        second thread, while main is inside "outer"
//   1        -            -        second thread, after its pop
//   3        1002         inner    "inner" inside "outer"
//   1        1001         outer    after "inner" and 1002 are popped
//   1        -            -        main, after everything is popped
//
// The EXPECT line counts kernels per external id (ext_ids) and per innermost
// scope (ext_scopes); "none" counts those without. Untraced, every call is a
// no-op and the program runs the same.
#include <cuptitrace/cuptitrace.h>

#include <cstdio>
#include <thread>

#include "sample_common.h"

namespace {

__global__ void bump(int* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += 1;
}

constexpr int kN = 1 << 12;
constexpr int kBlock = 256;

void launch(int* d, int count, cudaStream_t stream = nullptr) {
  for (int k = 0; k < count; ++k) {
    bump<<<(kN + kBlock - 1) / kBlock, kBlock, 0, stream>>>(d, kN);
    CHECK_LAUNCH();
  }
}

int failures = 0;
void expectStatus(int got, int traced, const char* what) {
  const int want = traced ? CUPTITRACE_OK : CUPTITRACE_NOT_TRACED;
  if (got == want) return;
  std::fprintf(stderr, "external_ids: %s returned %d, expected %d\n", what, got, want);
  ++failures;
}

}  // namespace

int main() {
  sample::requireGpuAndWarmUp("external_ids");
  const int traced = cuptitrace_is_traced();
  std::printf("external_ids: %s\n", traced ? "traced" : "not traced: the calls are no-ops");

  int* d = nullptr;
  int* other = nullptr;
  CHECK_CUDA(cudaMalloc(&d, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&other, kN * sizeof(int)));
  CHECK_CUDA(cudaMemset(d, 0, kN * sizeof(int)));  // counted below: memset=2
  CHECK_CUDA(cudaMemset(other, 0, kN * sizeof(int)));

  launch(d, 1);
  expectStatus(cuptitrace_push_external_id(1001), traced, "push_external_id(1001)");
  launch(d, 2);
  const uint64_t outer = cuptitrace_push_scope("outer");
  launch(d, 1);

  std::thread second([other, traced] {
    cudaStream_t stream;
    if (!CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking))) std::exit(1);
    expectStatus(cuptitrace_push_external_id(2001), traced, "push_external_id(2001) on the second thread");
    launch(other, 2, stream);
    uint64_t popped = 0;
    expectStatus(cuptitrace_pop_external_id(&popped), traced, "pop_external_id on the second thread");
    if (traced && popped != 2001) {
      std::fprintf(stderr, "external_ids: the second thread popped %llu, expected 2001\n",
                   static_cast<unsigned long long>(popped));
      ++failures;
    }
    launch(other, 1, stream);
    if (!CUDA_OK(cudaStreamSynchronize(stream)) || !CUDA_OK(cudaStreamDestroy(stream))) std::exit(1);
  });
  second.join();

  expectStatus(cuptitrace_push_external_id(1002), traced, "push_external_id(1002)");
  {
    const cuptitrace::Scope inner("inner");
    launch(d, 3);
    if (traced && (inner.id() == 0 || inner.id() == outer)) {
      std::fprintf(stderr, "external_ids: scope ids %llu and %llu are not distinct and nonzero\n",
                   static_cast<unsigned long long>(outer), static_cast<unsigned long long>(inner.id()));
      ++failures;
    }
  }
  uint64_t popped = 0;
  expectStatus(cuptitrace_pop_external_id(&popped), traced, "pop_external_id (1002)");
  if (traced && popped != 1002) ++failures;
  launch(d, 1);
  expectStatus(cuptitrace_pop_scope(), traced, "pop_scope (outer)");
  expectStatus(cuptitrace_pop_external_id(&popped), traced, "pop_external_id (1001)");
  if (traced && popped != 1001) ++failures;
  launch(d, 1);

  int h[kN];
  CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) {
    if (h[i] != 9) {
      std::fprintf(stderr, "external_ids: element %d is %d, expected 9\n", i, h[i]);
      return 1;
    }
  }
  CHECK_CUDA(cudaFree(d));
  CHECK_CUDA(cudaFree(other));
  if (failures != 0) return 1;

  std::printf("external_ids: 12 kernels under ids and scopes ok\n");
  std::printf(
      "EXPECT kernels=12 memcpy=1 memset=2 launch_calls=15 memcpy_DtoH=1 memcpy_pageable=1 "
      "nvtx_pushpop=2 nvtx_depth=2 threads=2 streams=2 "
      "ext_ids=1001:4,1002:3,2001:2,none:3 ext_scopes=outer:2,inner:3,none:7\n");
  return 0;
}
