// A program that uses NVTX and no CUDA: under NVTX_INJECTION64_PATH the
// library is loaded at its first NVTX call. Exits 7 so a test can see that
// the exit code is the program's own.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>

int main() {
  nvtxRangePushA("outer");
  nvtxMarkA("mark");
  nvtxRangePop();
  std::puts("nvtx_only: ran");
  return 7;
}
