// peer_copy: one process, two GPUs. A kernel on each device, then
// cudaMemcpyPeerAsync both ways (0 -> 1 on device 0's stream, 1 -> 0 on
// device 1's), then a kernel on each device again; results checked on the
// host. Needs two GPUs: exits 77 with fewer. Peer access is enabled when the
// devices allow it (the copies work either way; with it they go over NVLink).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sample_common.h"

__global__ void fill(float* x, float value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

__global__ void addOne(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

int main(int, char** argv) {
  sample::requireGpuAndWarmUp(argv[0]);
  int count = 0;
  CHECK_CUDA(cudaGetDeviceCount(&count));
  if (count < 2) {
    std::printf("%s: skipped: %d CUDA device(s), two needed\n", argv[0], count);
    return sample::kExitSkip;
  }
  const int n = 1 << 22;
  const size_t bytes = n * sizeof(float);
  const int block = 256, grid = (n + block - 1) / block;
  float* x[2] = {nullptr, nullptr};  // filled on their own device
  float* y[2] = {nullptr, nullptr};  // the copy from the other device
  cudaStream_t stream[2];
  for (int d = 0; d < 2; ++d) {
    CHECK_CUDA(cudaSetDevice(d));
    CHECK_CUDA(cudaFree(0));
    int canAccess = 0;
    CHECK_CUDA(cudaDeviceCanAccessPeer(&canAccess, d, 1 - d));
    if (canAccess) CHECK_CUDA(cudaDeviceEnablePeerAccess(1 - d, 0));
    CHECK_CUDA(cudaMalloc(&x[d], bytes));
    CHECK_CUDA(cudaMalloc(&y[d], bytes));
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream[d], cudaStreamNonBlocking));
  }
  for (int d = 0; d < 2; ++d) {
    CHECK_CUDA(cudaSetDevice(d));
    fill<<<grid, block, 0, stream[d]>>>(x[d], 10.0f * static_cast<float>(d + 1), n);
    CHECK_LAUNCH();
  }
  // Each copy on the stream of the device that holds the source, after its fill.
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaMemcpyPeerAsync(y[1], 1, x[0], 0, bytes, stream[0]));
  CHECK_CUDA(cudaSetDevice(1));
  CHECK_CUDA(cudaMemcpyPeerAsync(y[0], 0, x[1], 1, bytes, stream[1]));
  for (int d = 0; d < 2; ++d) {
    CHECK_CUDA(cudaSetDevice(d));
    CHECK_CUDA(cudaStreamSynchronize(stream[d]));
  }
  for (int d = 0; d < 2; ++d) {
    CHECK_CUDA(cudaSetDevice(d));
    addOne<<<grid, block, 0, stream[d]>>>(y[d], n);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaStreamSynchronize(stream[d]));
  }
  std::vector<float> host(n);
  for (int d = 0; d < 2; ++d) {
    CHECK_CUDA(cudaSetDevice(d));
    CHECK_CUDA(cudaMemcpy(host.data(), y[d], bytes, cudaMemcpyDeviceToHost));
    // y[d] holds the other device's fill, plus one.
    const float expected = 10.0f * static_cast<float>((1 - d) + 1) + 1.0f;
    if (host[0] != expected || host[n - 1] != expected) {
      std::fprintf(stderr, "peer_copy: device %d got %f, expected %f\n", d, host[0], expected);
      return 1;
    }
  }
  for (int d = 0; d < 2; ++d) {
    CHECK_CUDA(cudaSetDevice(d));
    CHECK_CUDA(cudaFree(x[d]));
    CHECK_CUDA(cudaFree(y[d]));
    CHECK_CUDA(cudaStreamDestroy(stream[d]));
  }
  std::printf("peer_copy: ok\n");
  std::printf("EXPECT kernels=4 ptop_copies=2 dtoh_copies=2 devices=2\n");
  return 0;
}
