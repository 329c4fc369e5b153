// An OpenACC program for the OpenACC GPU test (tests/gpu/openacc.sh): a data
// region with copyin and copy, synchronous parallel loops in it, asynchronous
// ones on queue 1 and the wait for them, and update host/device pairs. It
// prints how many of each it ran (the EXPECT line), then checks the result.
// Built with GCC's OpenACC offloading to NVIDIA GPUs:
//   gcc-12 -O2 -fopenacc -foffload=nvptx-none openacc_saxpy.c -o openacc_saxpy
#include <math.h>
#include <openacc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  kElements = 1 << 20,
  kSyncLoops = 10,   // parallel loops, each waited for at its end
  kAsyncLoops = 4,   // parallel loops on queue 1, waited for once
  kUpdates = 3,      // update host, then update device
};

static float x[kElements], y[kElements];

int main(int argc, char** argv) {
  // Without an NVIDIA GPU the runtime would run the loops on the host: only
  // when asked ("host": tests/integration/openacc_no_driver.sh).
  const int hostAllowed = argc > 1 && strcmp(argv[1], "host") == 0;
  if (!hostAllowed && acc_get_num_devices(acc_device_nvidia) == 0) {
    printf("openacc_saxpy: no NVIDIA device for OpenACC\n");
    return 77;
  }
  const float a = 0.5f;
  for (int i = 0; i < kElements; ++i) {
    x[i] = 1.0f;
    y[i] = 2.0f;
  }
  int waits = 0;
#pragma acc data copyin(x[0:kElements]) copy(y[0:kElements])
  {
    for (int it = 0; it < kSyncLoops; ++it) {
#pragma acc parallel loop present(x[0:kElements], y[0:kElements])
      for (int i = 0; i < kElements; ++i) y[i] = a * x[i] + y[i];
    }
    for (int it = 0; it < kAsyncLoops; ++it) {
#pragma acc parallel loop present(x[0:kElements], y[0:kElements]) async(1)
      for (int i = 0; i < kElements; ++i) y[i] = a * x[i] + y[i];
    }
#pragma acc wait(1)
    ++waits;
    for (int u = 0; u < kUpdates; ++u) {
#pragma acc update host(y[0:kElements])
      y[0] += 1.0f;  // changed on the host, sent back
#pragma acc update device(y[0:kElements])
    }
  }
  const float expected = 2.0f + 0.5f * (kSyncLoops + kAsyncLoops);
  if (fabsf(y[1] - expected) > 1e-4f || fabsf(y[0] - (expected + kUpdates)) > 1e-4f) {
    fprintf(stderr, "openacc_saxpy: wrong result: y[0]=%g y[1]=%g, expected %g and %g\n", y[0], y[1],
            expected + kUpdates, expected);
    return 1;
  }
  printf("openacc_saxpy: ok (y[1] = %g)\n", y[1]);
  // The data region's copyin (x) and copy (y) upload once each, every
  // update device once; copy (y) downloads at the end, every update host once.
  printf("EXPECT openacc launches=%d updates=%d uploads>=%d downloads>=%d waits>=%d\n",
         kSyncLoops + kAsyncLoops, 2 * kUpdates, 2 + kUpdates, 1 + kUpdates, waits);
  return 0;
}
