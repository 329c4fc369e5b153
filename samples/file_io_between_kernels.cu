// file_io_between_kernels: GPU work, then the CPU blocked in C library calls,
// then GPU work again: what the osrt activity shows on the thread's track
// between the two batches of launches. Traced with
//   cuptitrace --activities default,osrt --osrt-threshold 0 -- file_io_between_kernels
// (the command preloads the library, which osrt needs).
//
// Between the batches, on the main thread: a temporary file written (fopen,
// fclose) and read back line by line (fopen, fgets per line and once more at
// the end, fclose), a 20 ms usleep, two 5 ms nanosleeps. The EXPECT key
// osrt_calls gives the least number of each call recorded there (the CUDA
// driver may make such calls too), osrt_min_ns the least duration of the
// longest one of a name.
//
// usage: file_io_between_kernels [lines (default 40)]
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "sample_common.h"

namespace {

__global__ void bump(int* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += 1;
}

constexpr int kN = 1 << 12;
constexpr int kKernelsPerBatch = 4;

void batch(int* d) {
  for (int k = 0; k < kKernelsPerBatch; ++k) {
    bump<<<kN / 256, 256>>>(d, kN);
    CHECK_LAUNCH();
  }
  CHECK_CUDA(cudaDeviceSynchronize());
}

}  // namespace

int main(int argc, char** argv) {
  const int lines = sample::positiveArg(argc, argv, 1, 40, 100000, "lines");
  sample::requireGpuAndWarmUp(argv[0]);
  int* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, kN * sizeof(int)));
  CHECK_CUDA(cudaMemset(d, 0, kN * sizeof(int)));

  batch(d);

  // The CPU's turn: a file written and read back, then sleeps.
  char path[] = "/tmp/file_io_between_kernels.XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) {
    std::perror("file_io_between_kernels: mkstemp");
    return 1;
  }
  ::close(fd);
  FILE* f = std::fopen(path, "w");
  if (f == nullptr) return 1;
  for (int i = 0; i < lines; ++i) std::fprintf(f, "line %d of the file between the kernels\n", i);
  std::fclose(f);
  f = std::fopen(path, "r");
  if (f == nullptr) return 1;
  char line[256];
  int linesRead = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) ++linesRead;
  std::fclose(f);
  ::unlink(path);
  if (linesRead != lines) {
    std::fprintf(stderr, "file_io_between_kernels: read %d lines, wrote %d\n", linesRead, lines);
    return 1;
  }
  ::usleep(20000);
  const timespec fiveMs{0, 5000000};
  ::nanosleep(&fiveMs, nullptr);
  ::nanosleep(&fiveMs, nullptr);

  batch(d);

  int h[kN];
  CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) {
    if (h[i] != 2 * kKernelsPerBatch) {
      std::fprintf(stderr, "file_io_between_kernels: element %d is %d\n", i, h[i]);
      return 1;
    }
  }
  CHECK_CUDA(cudaFree(d));
  std::printf("file_io_between_kernels: %d lines between two batches of %d kernels ok\n", lines,
              kKernelsPerBatch);
  std::printf(
      "EXPECT kernels=%d memcpy=1 memset=1 launch_calls=%d memcpy_DtoH=1 threads=1 streams=1 "
      "osrt_calls=fopen:2,fclose:2,fgets:%d,usleep:1,nanosleep:2 osrt_min_ns=usleep:20000000,nanosleep:5000000\n",
      2 * kKernelsPerBatch, 2 * kKernelsPerBatch + 2, lines + 1);
  return 0;
}
