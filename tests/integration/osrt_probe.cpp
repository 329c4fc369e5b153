// Makes each kind of wrapped C library call, with the osrt preload library
// preloaded (LD_PRELOAD=libcuptitrace-osrt.so) and a stand-in for the tracer
// loaded privately, as the CUDA driver loads the tracer (the first argument:
// libosrt_test_sink.so, see osrt_test_sink.cpp), and checks
// what was recorded: which calls, on which thread, how long, with which
// error; that short calls, uncontended locks, calls on a tracer thread, in a
// forked child and after recording stops are not recorded; that errno and
// results are the C library's. Exit 0 when everything held.
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

using ArmFn = void (*)(uint64_t);
using VoidFn = void (*)();
using CountFn = int (*)(const char*, uint32_t, uint64_t, uint32_t*);
using CounterFn = uint64_t (*)(const char*);

ArmFn arm;
VoidFn disarm, markTracerThread;
CountFn countFn;
CounterFn counter;
int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "osrt_probe: FAIL %s\n", what.c_str());
  ++failures;
}

uint32_t currentTid() { return static_cast<uint32_t>(::syscall(SYS_gettid)); }

int count(const char* name, uint32_t tid, uint64_t minNs = 0, uint32_t* error = nullptr) {
  return countFn(name, tid, minNs, error);
}

void expectCount(const char* name, uint32_t tid, int expected, uint64_t minNs = 0) {
  const int n = count(name, tid, minNs);
  expect(n == expected, std::string(name) + ": " + std::to_string(n) + " recorded, expected " +
                            std::to_string(expected));
}

void sleepMs(int ms) {
  timespec t{0, ms * 1000000L};
  ::nanosleep(&t, nullptr);
}

constexpr uint64_t kMs = 1000000;
// Phase two's threshold: the waits below take 5 ms and more, the short calls
// microseconds; the margin keeps a busy machine from blurring the two.
constexpr uint64_t kThreshold = 2 * kMs;

void fileCalls(const std::string& path, uint32_t me) {
  FILE* f = std::fopen(path.c_str(), "w");
  expect(f != nullptr, "fopen for writing");
  if (f == nullptr) return;
  std::fputs("one\ntwo\nthree\n", f);
  std::fclose(f);
  f = std::fopen(path.c_str(), "r");
  expect(f != nullptr, "fopen for reading");
  if (f == nullptr) return;
  char line[64];
  int lines = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) ++lines;
  std::fclose(f);
  expect(lines == 3, "fgets read the file through the wrapper");
  expectCount("fopen", me, 2);
  expectCount("fclose", me, 2);
  expectCount("fgets", me, 4);  // three lines and the end of the file

  const int fd = ::open(path.c_str(), O_RDONLY);
  expect(fd >= 0, "open");
  char bytes[4] = {};
  expect(::read(fd, bytes, 3) == 3 && std::memcmp(bytes, "one", 3) == 0, "read returns the file's bytes");
  ::close(fd);
  errno = 0;
  expect(::read(-1, bytes, 1) == -1 && errno == EBADF, "read on a bad descriptor keeps its errno");
  uint32_t error = 0;
  expect(count("read", me, 0, &error) == 2 && error == EBADF, "the failed read is recorded with EBADF");
  expectCount("open", me, 1);

  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  expect(::pthread_mutex_lock(&m) == 0, "uncontended lock");
  ::pthread_mutex_unlock(&m);
  expectCount("pthread_mutex_lock", 0, 0);  // not contended: not recorded, even at threshold 0
}

void waits(uint32_t me) {
  // Sleeps.
  sleepMs(5);
  ::usleep(5000);
  timespec t{0, 5 * 1000000L};
  expect(::clock_nanosleep(CLOCK_MONOTONIC, 0, &t, nullptr) == 0, "clock_nanosleep");
  expectCount("nanosleep", me, 1, 4 * kMs);
  expectCount("usleep", me, 1, 4 * kMs);
  expectCount("clock_nanosleep", me, 1, 4 * kMs);

  // A contended mutex: waited for, so recorded.
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  std::atomic<bool> holding{false};
  std::thread holder([&] {
    ::pthread_mutex_lock(&m);
    holding = true;
    sleepMs(20);
    ::pthread_mutex_unlock(&m);
  });
  while (!holding) std::this_thread::yield();
  expect(::pthread_mutex_lock(&m) == 0, "contended lock");
  ::pthread_mutex_unlock(&m);
  holder.join();
  expectCount("pthread_mutex_lock", me, 1, 5 * kMs);

  // A condition wait that times out: recorded with ETIMEDOUT.
  pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
  ::pthread_mutex_lock(&m);
  timespec until{};
  ::clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += 5 * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_nsec -= 1000000000L;
    ++until.tv_sec;
  }
  expect(::pthread_cond_timedwait(&cond, &m, &until) == ETIMEDOUT, "pthread_cond_timedwait times out");
  ::pthread_mutex_unlock(&m);
  uint32_t error = 0;
  expect(count("pthread_cond_timedwait", me, 4 * kMs, &error) == 1 && error == ETIMEDOUT,
         "the timed-out condition wait is recorded with ETIMEDOUT");

  // Waits on descriptors.
  expect(::poll(nullptr, 0, 5) == 0, "poll");
  timeval tv{0, 5000};
  expect(::select(0, nullptr, nullptr, nullptr, &tv) == 0, "select");
  const int ep = ::epoll_create1(0);
  epoll_event event{};
  expect(::epoll_wait(ep, &event, 1, 5) == 0, "epoll_wait");
  ::close(ep);
  expectCount("poll", me, 1, 4 * kMs);
  expectCount("select", me, 1, 4 * kMs);
  expectCount("epoll_wait", me, 1, 4 * kMs);

  // A read that waits for a writer.
  int pipeFds[2];
  expect(::pipe(pipeFds) == 0, "pipe");
  std::thread writer([&] {
    sleepMs(10);
    (void)::write(pipeFds[1], "x", 1);
  });
  char byte = 0;
  expect(::read(pipeFds[0], &byte, 1) == 1 && byte == 'x', "read from the pipe");
  writer.join();
  ::close(pipeFds[0]);
  ::close(pipeFds[1]);
  expectCount("read", me, 1, 5 * kMs);

  // Short writes: not recorded, but counted. (A busy machine may stall one
  // of them past the threshold now and then.)
  const int null = ::open("/dev/null", O_WRONLY);
  constexpr int kWrites = 50;
  for (int i = 0; i < kWrites; ++i) expect(::write(null, "x", 1) == 1, "write to /dev/null");
  ::close(null);
  const int longWrites = count("write", me);
  expect(longWrites <= 2, std::to_string(longWrites) + " short writes recorded");
  expect(counter("osrt.below_threshold") >= kWrites - 2, "short calls are counted");
}

void notRecorded(uint32_t me) {
  // A thread of the tracer's own.
  uint32_t tracerTid = 0;
  std::thread([&] {
    markTracerThread();
    tracerTid = currentTid();
    sleepMs(3);
  }).join();
  expectCount("nanosleep", tracerTid, 0);

  // A forked child records nothing.
  const pid_t child = ::fork();
  if (child == 0) {
    sleepMs(3);
    _exit(count("nanosleep", currentTid()) == 0 ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a forked child records nothing");

  // After recording stops.
  const int before = count("nanosleep", me);
  disarm();
  sleepMs(3);
  expect(count("nanosleep", me) == before, "nothing is recorded once recording stops");
}

}  // namespace

int main(int argc, char** argv) {
  // Privately, as the driver loads the tracer: the sink must find the
  // preload library by its attach name, not by being in the global scope.
  void* sink = argc > 1 ? ::dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (sink == nullptr) {
    std::fprintf(stderr, "osrt_probe: usage: LD_PRELOAD=libcuptitrace-osrt.so osrt_probe libosrt_test_sink.so (%s)\n",
                 ::dlerror());
    return 2;
  }
  arm = reinterpret_cast<ArmFn>(::dlsym(sink, "osrt_test_arm"));
  disarm = reinterpret_cast<VoidFn>(::dlsym(sink, "osrt_test_disarm"));
  markTracerThread = reinterpret_cast<VoidFn>(::dlsym(sink, "osrt_test_mark_tracer_thread"));
  countFn = reinterpret_cast<CountFn>(::dlsym(sink, "osrt_test_count"));
  counter = reinterpret_cast<CounterFn>(::dlsym(sink, "osrt_test_counter"));
  using ConnectedFn = int (*)();
  const auto connected = reinterpret_cast<ConnectedFn>(::dlsym(sink, "osrt_test_connected"));
  if (!arm || !disarm || !markTracerThread || !countFn || !counter || !connected) {
    std::fprintf(stderr, "osrt_probe: %s is not the test sink\n", argv[1]);
    return 2;
  }
  if (!connected()) {
    std::fprintf(stderr, "osrt_probe: FAIL the sink did not find the preloaded libcuptitrace-osrt.so\n");
    return 1;
  }
  const uint32_t me = currentTid();
  char dir[] = "/tmp/osrt_probe.XXXXXX";
  if (::mkdtemp(dir) == nullptr) return 2;
  const std::string path = std::string(dir) + "/lines.txt";

  arm(0);  // every call
  fileCalls(path, me);
  arm(kThreshold);  // a fresh recorder: long calls only
  waits(me);
  notRecorded(me);

  ::unlink(path.c_str());
  ::rmdir(dir);
  if (failures == 0) std::printf("osrt_probe: ok\n");
  return failures == 0 ? 0 : 1;
}
