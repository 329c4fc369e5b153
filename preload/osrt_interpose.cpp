// Wrappers of the C library calls that block a thread (the osrt activity):
// each is defined here under the C library's own name, so that with the
// library preloaded the program's calls land here first. A wrapper forwards
// to the next definition (dlsym(RTLD_NEXT), looked up once) and, when a
// tracer armed osrt recording, times the call and hands it to the tracer's
// sink (preload/osrt_gate.h says which calls and threads are left alone).
//
// Mutex locks are timed only when contended: a trylock comes first, and only
// a lock that is busy is waited for and timed.

// Before any system header: the wrappers must define the plain names (open,
// not open64 under _FILE_OFFSET_BITS=64), and the fortified inline versions
// of read, fgets, ... must not be defined in this file.
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <type_traits>

#include "preload/osrt_calls.h"
#include "preload/osrt_gate.h"

namespace cuptitrace::preload {
namespace {

// The next definition of a C library function, looked up on first use (or
// when the library loads, see resolveAll) and kept.
template <typename Fn>
class Next {
 public:
  constexpr Next(const char* name, const char* version = nullptr) : name_(name), version_(version) {}

  Fn get() {
    Fn f = fn_.load(std::memory_order_acquire);
    if (f != nullptr) return f;
    void* p = version_ != nullptr ? ::dlvsym(RTLD_NEXT, name_, version_) : nullptr;
    if (p == nullptr) p = ::dlsym(RTLD_NEXT, name_);
    f = reinterpret_cast<Fn>(p);
    fn_.store(f, std::memory_order_release);
    return f;
  }

 private:
  std::atomic<Fn> fn_{nullptr};
  const char* name_;
  const char* version_;
};

// How a call reports failure, for ApiRecord::returnValue: Errno, by -1 (or
// a null pointer) with the reason in errno; ErrorCode, by returning the
// reason; Never, not in a way worth keeping (fgets's NULL may be the end of
// the file).
enum class Fails { Errno, ErrorCode, Never };

template <typename R>
uint32_t errorOf(Fails how, R result) {
  if constexpr (std::is_pointer_v<R>) {
    return how == Fails::Errno && result == nullptr ? static_cast<uint32_t>(errno) : 0;
  } else {
    switch (how) {
      case Fails::Errno: return result == static_cast<R>(-1) ? static_cast<uint32_t>(errno) : 0;
      case Fails::ErrorCode: return static_cast<uint32_t>(result);
      case Fails::Never: break;
    }
    return 0;
  }
}

template <typename R>
R unavailable() {
  errno = ENOSYS;
  if constexpr (std::is_pointer_v<R>) return nullptr;
  else return static_cast<R>(-1);
}

template <typename Fn, typename... A>
auto timedCall(Next<Fn>& next, OsrtCall what, Fails how, A... args) {
  const Fn real = next.get();
  using R = decltype(real(args...));
  if (real == nullptr) return unavailable<R>();  // no C library below us: cannot happen in practice
  uint64_t start = 0;
  if (!armed() || !begin(&start)) return real(args...);
  const R result = real(args...);
  end(static_cast<uint16_t>(what), start, errorOf(how, result));
  return result;
}

// A mode argument follows when a file may be created.
bool takesMode(int flags) { return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE; }

// pthread_cond_* exist in two versions on x86-64; the old one (GLIBC_2.2.5)
// works on another layout of pthread_cond_t. Ask for the current one.
#if defined(__x86_64__)
constexpr const char* kCondVersion = "GLIBC_2.3.2";
#else
constexpr const char* kCondVersion = nullptr;
#endif

Next<int (*)(const char*, int, ...)> nOpen("open"), nOpen64("open64");
Next<int (*)(int, const char*, int, ...)> nOpenat("openat"), nOpenat64("openat64");
Next<int (*)(const char*, int)> nOpen2("__open_2"), nOpen64_2("__open64_2");
Next<int (*)(int, const char*, int)> nOpenat2("__openat_2"), nOpenat64_2("__openat64_2");
Next<int (*)(const char*, mode_t)> nCreat("creat"), nCreat64("creat64");
Next<ssize_t (*)(int, void*, size_t)> nRead("read");
Next<ssize_t (*)(int, void*, size_t, size_t)> nReadChk("__read_chk");
Next<ssize_t (*)(int, void*, size_t, off_t)> nPread("pread");
Next<ssize_t (*)(int, void*, size_t, off64_t)> nPread64("pread64");
Next<ssize_t (*)(int, const struct iovec*, int)> nReadv("readv"), nWritev("writev");
Next<ssize_t (*)(int, const void*, size_t)> nWrite("write");
Next<ssize_t (*)(int, const void*, size_t, off_t)> nPwrite("pwrite");
Next<ssize_t (*)(int, const void*, size_t, off64_t)> nPwrite64("pwrite64");
Next<FILE* (*)(const char*, const char*)> nFopen("fopen"), nFopen64("fopen64");
Next<int (*)(FILE*)> nFclose("fclose"), nFflush("fflush");
Next<size_t (*)(void*, size_t, size_t, FILE*)> nFread("fread");
Next<size_t (*)(void*, size_t, size_t, size_t, FILE*)> nFreadChk("__fread_chk");
Next<size_t (*)(const void*, size_t, size_t, FILE*)> nFwrite("fwrite");
Next<char* (*)(char*, int, FILE*)> nFgets("fgets");
Next<char* (*)(char*, size_t, int, FILE*)> nFgetsChk("__fgets_chk");
Next<int (*)(int)> nFsync("fsync"), nFdatasync("fdatasync");
Next<int (*)(const struct timespec*, struct timespec*)> nNanosleep("nanosleep");
Next<int (*)(clockid_t, int, const struct timespec*, struct timespec*)> nClockNanosleep("clock_nanosleep");
Next<int (*)(useconds_t)> nUsleep("usleep");
Next<unsigned (*)(unsigned)> nSleep("sleep");
Next<int (*)(pthread_mutex_t*)> nMutexLock("pthread_mutex_lock"), nMutexTrylock("pthread_mutex_trylock");
Next<int (*)(pthread_cond_t*, pthread_mutex_t*)> nCondWait("pthread_cond_wait", kCondVersion);
Next<int (*)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*)> nCondTimedwait(
    "pthread_cond_timedwait", kCondVersion);
Next<int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*)> nCondClockwait(
    "pthread_cond_clockwait");
Next<int (*)(int, unsigned long, ...)> nIoctl("ioctl");
Next<int (*)(struct pollfd*, nfds_t, int)> nPoll("poll");
Next<int (*)(struct pollfd*, nfds_t, const struct timespec*, const sigset_t*)> nPpoll("ppoll");
Next<int (*)(int, fd_set*, fd_set*, fd_set*, struct timeval*)> nSelect("select");
Next<int (*)(int, fd_set*, fd_set*, fd_set*, const struct timespec*, const sigset_t*)> nPselect("pselect");
Next<int (*)(int, struct epoll_event*, int, int)> nEpollWait("epoll_wait");
Next<int (*)(int, struct epoll_event*, int, int, const sigset_t*)> nEpollPwait("epoll_pwait");

// Looked up when the library loads: a first call may come from a signal
// handler, where dlsym must not run.
__attribute__((constructor)) void resolveAll() {
  nOpen.get(), nOpen64.get(), nOpenat.get(), nOpenat64.get(), nOpen2.get(), nOpen64_2.get();
  nOpenat2.get(), nOpenat64_2.get(), nCreat.get(), nCreat64.get(), nRead.get(), nReadChk.get();
  nPread.get(), nPread64.get(), nReadv.get(), nWritev.get(), nWrite.get(), nPwrite.get();
  nPwrite64.get(), nFopen.get(), nFopen64.get(), nFclose.get(), nFflush.get(), nFread.get();
  nFreadChk.get(), nFwrite.get(), nFgets.get(), nFgetsChk.get(), nFsync.get(), nFdatasync.get();
  nNanosleep.get(), nClockNanosleep.get(), nUsleep.get(), nSleep.get(), nMutexLock.get();
  nMutexTrylock.get(), nCondWait.get(), nCondTimedwait.get(), nCondClockwait.get(), nIoctl.get();
  nPoll.get(), nPpoll.get(), nSelect.get(), nPselect.get(), nEpollWait.get(), nEpollPwait.get();
  ::dlerror();  // a function this C library lacks leaves an error message: not the program's
}

}  // namespace

}  // namespace cuptitrace::preload

using cuptitrace::OsrtCall;
using cuptitrace::preload::Fails;
using cuptitrace::preload::timedCall;
namespace wrap = cuptitrace::preload;

#define OSRT_WRAPPER extern "C" __attribute__((visibility("default")))

// ---- Files --------------------------------------------------------------------

OSRT_WRAPPER int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (wrap::takesMode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return timedCall(wrap::nOpen, OsrtCall::Open, Fails::Errno, path, flags, mode);
}
OSRT_WRAPPER int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (wrap::takesMode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return timedCall(wrap::nOpen64, OsrtCall::Open, Fails::Errno, path, flags, mode);
}
OSRT_WRAPPER int openat(int dir, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (wrap::takesMode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return timedCall(wrap::nOpenat, OsrtCall::Openat, Fails::Errno, dir, path, flags, mode);
}
OSRT_WRAPPER int openat64(int dir, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (wrap::takesMode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return timedCall(wrap::nOpenat64, OsrtCall::Openat, Fails::Errno, dir, path, flags, mode);
}
OSRT_WRAPPER int __open_2(const char* path, int flags) {
  return timedCall(wrap::nOpen2, OsrtCall::Open, Fails::Errno, path, flags);
}
OSRT_WRAPPER int __open64_2(const char* path, int flags) {
  return timedCall(wrap::nOpen64_2, OsrtCall::Open, Fails::Errno, path, flags);
}
OSRT_WRAPPER int __openat_2(int dir, const char* path, int flags) {
  return timedCall(wrap::nOpenat2, OsrtCall::Openat, Fails::Errno, dir, path, flags);
}
OSRT_WRAPPER int __openat64_2(int dir, const char* path, int flags) {
  return timedCall(wrap::nOpenat64_2, OsrtCall::Openat, Fails::Errno, dir, path, flags);
}
OSRT_WRAPPER int creat(const char* path, mode_t mode) {
  return timedCall(wrap::nCreat, OsrtCall::Creat, Fails::Errno, path, mode);
}
OSRT_WRAPPER int creat64(const char* path, mode_t mode) {
  return timedCall(wrap::nCreat64, OsrtCall::Creat, Fails::Errno, path, mode);
}
OSRT_WRAPPER ssize_t read(int fd, void* buf, size_t n) {
  return timedCall(wrap::nRead, OsrtCall::Read, Fails::Errno, fd, buf, n);
}
OSRT_WRAPPER ssize_t __read_chk(int fd, void* buf, size_t n, size_t size) {
  return timedCall(wrap::nReadChk, OsrtCall::Read, Fails::Errno, fd, buf, n, size);
}
OSRT_WRAPPER ssize_t pread(int fd, void* buf, size_t n, off_t offset) {
  return timedCall(wrap::nPread, OsrtCall::Pread, Fails::Errno, fd, buf, n, offset);
}
OSRT_WRAPPER ssize_t pread64(int fd, void* buf, size_t n, off64_t offset) {
  return timedCall(wrap::nPread64, OsrtCall::Pread, Fails::Errno, fd, buf, n, offset);
}
OSRT_WRAPPER ssize_t readv(int fd, const struct iovec* iov, int count) {
  return timedCall(wrap::nReadv, OsrtCall::Readv, Fails::Errno, fd, iov, count);
}
OSRT_WRAPPER ssize_t write(int fd, const void* buf, size_t n) {
  return timedCall(wrap::nWrite, OsrtCall::Write, Fails::Errno, fd, buf, n);
}
OSRT_WRAPPER ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  return timedCall(wrap::nPwrite, OsrtCall::Pwrite, Fails::Errno, fd, buf, n, offset);
}
OSRT_WRAPPER ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t offset) {
  return timedCall(wrap::nPwrite64, OsrtCall::Pwrite, Fails::Errno, fd, buf, n, offset);
}
OSRT_WRAPPER ssize_t writev(int fd, const struct iovec* iov, int count) {
  return timedCall(wrap::nWritev, OsrtCall::Writev, Fails::Errno, fd, iov, count);
}
OSRT_WRAPPER FILE* fopen(const char* path, const char* mode) {
  return timedCall(wrap::nFopen, OsrtCall::Fopen, Fails::Errno, path, mode);
}
OSRT_WRAPPER FILE* fopen64(const char* path, const char* mode) {
  return timedCall(wrap::nFopen64, OsrtCall::Fopen, Fails::Errno, path, mode);
}
OSRT_WRAPPER int fclose(FILE* f) { return timedCall(wrap::nFclose, OsrtCall::Fclose, Fails::Errno, f); }
OSRT_WRAPPER int fflush(FILE* f) { return timedCall(wrap::nFflush, OsrtCall::Fflush, Fails::Errno, f); }
OSRT_WRAPPER size_t fread(void* buf, size_t size, size_t n, FILE* f) {
  return timedCall(wrap::nFread, OsrtCall::Fread, Fails::Never, buf, size, n, f);
}
OSRT_WRAPPER size_t __fread_chk(void* buf, size_t bufSize, size_t size, size_t n, FILE* f) {
  return timedCall(wrap::nFreadChk, OsrtCall::Fread, Fails::Never, buf, bufSize, size, n, f);
}
OSRT_WRAPPER size_t fwrite(const void* buf, size_t size, size_t n, FILE* f) {
  return timedCall(wrap::nFwrite, OsrtCall::Fwrite, Fails::Never, buf, size, n, f);
}
OSRT_WRAPPER char* fgets(char* s, int n, FILE* f) {
  return timedCall(wrap::nFgets, OsrtCall::Fgets, Fails::Never, s, n, f);
}
OSRT_WRAPPER char* __fgets_chk(char* s, size_t size, int n, FILE* f) {
  return timedCall(wrap::nFgetsChk, OsrtCall::Fgets, Fails::Never, s, size, n, f);
}
OSRT_WRAPPER int fsync(int fd) { return timedCall(wrap::nFsync, OsrtCall::Fsync, Fails::Errno, fd); }
OSRT_WRAPPER int fdatasync(int fd) {
  return timedCall(wrap::nFdatasync, OsrtCall::Fdatasync, Fails::Errno, fd);
}

// ---- Sleeps -------------------------------------------------------------------

OSRT_WRAPPER int nanosleep(const struct timespec* duration, struct timespec* left) {
  return timedCall(wrap::nNanosleep, OsrtCall::Nanosleep, Fails::Errno, duration, left);
}
OSRT_WRAPPER int clock_nanosleep(clockid_t clock, int flags, const struct timespec* t, struct timespec* left) {
  return timedCall(wrap::nClockNanosleep, OsrtCall::ClockNanosleep, Fails::ErrorCode, clock, flags, t, left);
}
OSRT_WRAPPER int usleep(useconds_t us) {
  return timedCall(wrap::nUsleep, OsrtCall::Usleep, Fails::Errno, us);
}
OSRT_WRAPPER unsigned sleep(unsigned seconds) {
  return timedCall(wrap::nSleep, OsrtCall::Sleep, Fails::Never, seconds);
}

// ---- Locks and condition variables -------------------------------------------

OSRT_WRAPPER int pthread_mutex_lock(pthread_mutex_t* mutex) noexcept {
  const auto lock = wrap::nMutexLock.get();
  if (!wrap::armed()) return lock(mutex);
  // Uncontended locks are not worth a record: only a busy one is waited for.
  // Any other answer (taken, or a robust mutex's EOWNERDEAD, an error) is
  // what the lock itself would have answered.
  const int tried = wrap::nMutexTrylock.get()(mutex);
  if (tried != EBUSY) return tried;
  uint64_t start = 0;
  if (!wrap::begin(&start)) return lock(mutex);
  const int result = lock(mutex);
  wrap::end(static_cast<uint16_t>(OsrtCall::MutexLock), start, static_cast<uint32_t>(result));
  return result;
}
OSRT_WRAPPER int pthread_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex) {
  return timedCall(wrap::nCondWait, OsrtCall::CondWait, Fails::ErrorCode, cond, mutex);
}
OSRT_WRAPPER int pthread_cond_timedwait(pthread_cond_t* cond, pthread_mutex_t* mutex,
                                        const struct timespec* until) {
  return timedCall(wrap::nCondTimedwait, OsrtCall::CondTimedwait, Fails::ErrorCode, cond, mutex, until);
}
OSRT_WRAPPER int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                        const struct timespec* until) {
  return timedCall(wrap::nCondClockwait, OsrtCall::CondClockwait, Fails::ErrorCode, cond, mutex, clock, until);
}

// ---- Devices and waits on descriptors -----------------------------------------

OSRT_WRAPPER int ioctl(int fd, unsigned long request, ...) noexcept {
  // Every ioctl takes at most one more argument, a pointer or an integer
  // passed in a pointer-sized slot.
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return timedCall(wrap::nIoctl, OsrtCall::Ioctl, Fails::Errno, fd, request, arg);
}
OSRT_WRAPPER int poll(struct pollfd* fds, nfds_t n, int timeoutMs) {
  return timedCall(wrap::nPoll, OsrtCall::Poll, Fails::Errno, fds, n, timeoutMs);
}
OSRT_WRAPPER int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* timeout, const sigset_t* mask) {
  return timedCall(wrap::nPpoll, OsrtCall::Ppoll, Fails::Errno, fds, n, timeout, mask);
}
OSRT_WRAPPER int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* timeout) {
  return timedCall(wrap::nSelect, OsrtCall::Select, Fails::Errno, n, r, w, e, timeout);
}
OSRT_WRAPPER int pselect(int n, fd_set* r, fd_set* w, fd_set* e, const struct timespec* timeout,
                         const sigset_t* mask) {
  return timedCall(wrap::nPselect, OsrtCall::Pselect, Fails::Errno, n, r, w, e, timeout, mask);
}
OSRT_WRAPPER int epoll_wait(int ep, struct epoll_event* events, int max, int timeoutMs) {
  return timedCall(wrap::nEpollWait, OsrtCall::EpollWait, Fails::Errno, ep, events, max, timeoutMs);
}
OSRT_WRAPPER int epoll_pwait(int ep, struct epoll_event* events, int max, int timeoutMs, const sigset_t* mask) {
  return timedCall(wrap::nEpollPwait, OsrtCall::EpollPwait, Fails::Errno, ep, events, max, timeoutMs, mask);
}
