// endings: launches 20 kernels, waits for them, prints READY, then ends the
// way argv[1] says. Each way is one a real program ends by; the trace must
// hold the 20 kernels and the exit status must be the untraced one.
//   exit        exit(3)                                          -> 3
//   _exit       _exit(4), no exit handler runs                   -> 4
//   Exit        _Exit(6)                                         -> 6
//   quick_exit  quick_exit(7)                                    -> 7
//   terminate   an uncaught C++ exception: std::terminate, abort -> SIGABRT
//   wait        sleeps until a signal from outside ends it       -> that signal
//   reraise     a handler installed after CUDA started flags the
//               signal; main sets SIG_DFL and raises it again    -> that signal
//   reraise-early  the same, the handler installed before CUDA   -> that signal
//   read        a SIGINT handler without SA_RESTART, installed before CUDA;
//               main blocks in read(): the signal must interrupt
//               it (EINTR), as untraced                          -> 8
//   read-late   the same, the handler installed after CUDA       -> 8
//   segv-once   a SIGSEGV handler that logs and returns, installed
//               one-shot (SA_RESETHAND) before CUDA; then a fault:
//               the handler once, the fault again ends it    -> SIGSEGV
//   alarm       alarm(1) left at its default                     -> SIGALRM
//   pipe        writes lines to stdout until a write fails (exit
//               5); piped into head, SIGPIPE ends it first   -> SIGPIPE
//   execlp      becomes `sh -c 'exit 4'` through execlp      -> 4
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "sample_common.h"

__global__ void spin(int* p, int n) {
  if (threadIdx.x == 0) p[blockIdx.x] += n;
}

constexpr int kKernels = 20;
volatile sig_atomic_t gCaught = 0;

void flag(int sig) { gCaught = sig; }

// As CPython and many C programs install theirs: no SA_RESTART.
void installFlagHandler() {
  struct sigaction a {};
  a.sa_handler = flag;
  sigemptyset(&a.sa_mask);
  a.sa_flags = 0;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &a, nullptr);
}

void logFault(int) {
  static const char kLine[] = "fault handler ran\n";
  (void)write(2, kLine, sizeof(kLine) - 1);
}

bool is(const char* mode, const char* name) { return std::strcmp(mode, name) == 0; }

[[noreturn]] void reraise() {
  while (gCaught == 0) pause();
  const int sig = gCaught;
  // The idiom: the default action back, then the signal again, so that the
  // exit status says what ended the program.
  signal(sig, SIG_DFL);
  raise(sig);
  for (int i = 0; i < 60; ++i) sleep(1);  // the tracer writes, then the signal ends us
  std::fprintf(stderr, "endings: still alive after raising %d\n", sig);
  std::exit(1);
}

[[noreturn]] void blockInRead() {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  char byte;
  const ssize_t n = read(fds[0], &byte, 1);  // nothing ever comes: only a signal ends this
  if (n < 0 && errno == EINTR && gCaught != 0) {
    std::printf("interrupted by signal %d\n", static_cast<int>(gCaught));
    std::fflush(stdout);
    std::exit(8);
  }
  std::fprintf(stderr, "endings: read returned %zd (errno %d)\n", n, errno);
  std::exit(1);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exit";
  if (is(mode, "reraise-early") || is(mode, "read")) installFlagHandler();
  if (is(mode, "segv-once")) {
    struct sigaction a {};
    a.sa_handler = logFault;
    sigemptyset(&a.sa_mask);
    a.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &a, nullptr);
  }
  sample::requireGpuAndWarmUp(argv[0]);
  int* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 64 * sizeof(int)));
  for (int i = 0; i < kKernels; ++i) spin<<<64, 32>>>(d, i);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaDeviceSynchronize());
  if (is(mode, "reraise") || is(mode, "read-late")) installFlagHandler();
  std::printf("EXPECT kernels=%d mode=%s\nREADY\n", kKernels, mode);
  std::fflush(stdout);

  if (is(mode, "exit")) std::exit(3);
  if (is(mode, "_exit")) _exit(4);
  if (is(mode, "Exit")) _Exit(6);
  if (is(mode, "quick_exit")) std::quick_exit(7);
  if (is(mode, "terminate")) throw std::runtime_error("an exception nobody catches");
  if (is(mode, "reraise") || is(mode, "reraise-early")) reraise();
  if (is(mode, "read") || is(mode, "read-late")) blockInRead();
  if (is(mode, "segv-once")) *static_cast<volatile int*>(nullptr) = 1;
  if (is(mode, "alarm")) alarm(1);
  if (is(mode, "pipe")) {
    for (;;) {
      if (write(1, "y\n", 2) < 0) {
        std::fprintf(stderr, "endings: write failed: %s\n", std::strerror(errno));
        return 5;
      }
    }
  }
  if (is(mode, "execlp")) {
    execlp("sh", "sh", "-c", "exit 4", static_cast<char*>(nullptr));
    std::fprintf(stderr, "endings: execlp failed: %s\n", std::strerror(errno));
    return 1;
  }
  if (is(mode, "wait") || is(mode, "alarm")) {
    for (int i = 0; i < 120; ++i) sleep(1);
    std::fprintf(stderr, "endings: no signal came\n");
    return 1;
  }
  std::fprintf(stderr, "endings: unknown mode %s\n", mode);
  return 2;
}
