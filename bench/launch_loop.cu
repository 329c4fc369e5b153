// The launch-bound loop: N tiny kernels over 4 streams. Prints the time per
// launch of the loop alone (no start-up, no exit), which is what a tracer's
// per-launch cost shows in.
//   launch_loop [N]     default 200000
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void tiny(int* p) {
  if (threadIdx.x == 0) p[blockIdx.x] += 1;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 200000;
  if (n <= 0) {
    std::fprintf(stderr, "launch_loop: N must be positive\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "launch_loop: no GPU\n");
    return 77;
  }
  constexpr int kStreams = 4;
  cudaStream_t streams[kStreams];
  for (auto& s : streams) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(int));
  for (int i = 0; i < 1000; ++i) tiny<<<1, 32, 0, streams[i % kStreams]>>>(d);  // warm-up
  cudaDeviceSynchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) tiny<<<1, 32, 0, streams[i % kStreams]>>>(d);
  cudaDeviceSynchronize();
  const auto t1 = std::chrono::steady_clock::now();
  const double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  std::printf("launch_loop: %ld launches, %.3f us per launch\n", n, us / static_cast<double>(n));
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "launch_loop: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
