// Helpers shared by the samples: error checks, the no-GPU skip, argument parsing.
//
// Every sample follows the same contract, which tests/gpu/check_trace.py relies on:
//   - exit 0 on success, 1 on any CUDA error or wrong result, 2 on bad arguments,
//     77 when there is no usable GPU (the CTest "skipped" code);
//   - its last line on stdout is `EXPECT key=value ...`, the exact amount of GPU
//     work it launched, so a test can compare it with what the tracer recorded.
// Samples launch nothing that is not counted: the context is created with
// cudaFree(0), which runs no GPU work.
#pragma once

#include <cuda_runtime.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>

namespace sample {

inline constexpr int kExitSkip = 77;

// Prints the failed call and returns false; for code that must not exit (worker threads).
inline bool ok(cudaError_t err, const char* what, const char* file, int line) {
  if (err == cudaSuccess) return true;
  std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what, cudaGetErrorName(err),
               cudaGetErrorString(err));
  return false;
}

}  // namespace sample

// Checks a CUDA runtime call; on error prints it and exits 1 (main thread only).
#define CHECK_CUDA(call)                                                   \
  do {                                                                     \
    if (!sample::ok((call), #call, __FILE__, __LINE__)) std::exit(1);      \
  } while (0)

// Checks the launch that just happened (`kernel<<<...>>>` returns nothing).
#define CHECK_LAUNCH() CHECK_CUDA(cudaGetLastError())

// As CHECK_CUDA, but evaluates to false instead of exiting (for worker threads).
#define CUDA_OK(call) sample::ok((call), #call, __FILE__, __LINE__)

namespace sample {

// Exits 77 with the reason when no GPU can be used, then creates the context
// with cudaFree(0) so that later timings and records do not include it.
inline void requireGpuAndWarmUp(const char* program) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    std::printf("%s: skipped: cudaGetDeviceCount failed: %s (%s)\n", program, cudaGetErrorName(err),
                cudaGetErrorString(err));
    std::exit(kExitSkip);
  }
  if (count == 0) {
    std::printf("%s: skipped: cudaGetDeviceCount reports no CUDA device\n", program);
    std::exit(kExitSkip);
  }
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaFree(0));
}

// argv[index] as a whole positive number in [1, max], or `fallback` when absent.
// Rejects "12abc", "", "-3" and overflow (exit 2 with a usage line).
inline int positiveArg(int argc, char** argv, int index, int fallback, int max, const char* name) {
  if (index >= argc) return fallback;
  const char* text = argv[index];
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 1 || value > max || value > INT_MAX) {
    std::fprintf(stderr, "%s: %s must be a whole number from 1 to %d, not '%s'\n", argv[0], name, max,
                 text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

}  // namespace sample
