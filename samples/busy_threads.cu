// busy_threads: T threads launch kernels on their own streams without end, so
// that a signal sent from another process finds them inside CUDA calls (the
// case of a scheduler's SIGTERM at a time limit). Every 50 ms main prints the
// launches that have returned so far: `launched=N`, a lower bound on what the
// trace must hold when the signal comes.
//
// usage: busy_threads [threads (default 4)] [seconds before it ends by itself (default 60)]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "sample_common.h"

namespace {

__global__ void tick(int* p) {
  if (threadIdx.x == 0) p[blockIdx.x] += 1;
}

std::atomic<long> gLaunched{0};
std::atomic<bool> gStop{false};

void worker() {
  if (!CUDA_OK(cudaSetDevice(0))) return;
  cudaStream_t stream;
  int* d = nullptr;
  if (!CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) ||
      !CUDA_OK(cudaMalloc(&d, 64 * sizeof(int))))
    return;
  for (long i = 0; !gStop.load(std::memory_order_relaxed); ++i) {
    tick<<<4, 32, 0, stream>>>(d);
    gLaunched.fetch_add(1, std::memory_order_relaxed);
    // Waits keep the queue short, and threads inside CUDA calls.
    if (i % 64 == 63 && !CUDA_OK(cudaStreamSynchronize(stream))) return;
  }
  CUDA_OK(cudaStreamSynchronize(stream));
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = sample::positiveArg(argc, argv, 1, 4, 256, "threads");
  const int seconds = sample::positiveArg(argc, argv, 2, 60, 3600, "seconds");
  sample::requireGpuAndWarmUp(argv[0]);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::printf("launched=%ld\n", gLaunched.load());
    std::fflush(stdout);
  }
  gStop = true;
  for (auto& t : pool) t.join();
  std::printf("EXPECT kernels=%ld\n", gLaunched.load());
  return 0;
}
