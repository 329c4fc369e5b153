#include "injection/exec_calls.h"

#include <alloca.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "injection/signals.h"

extern char** environ;

namespace cuptitrace {
namespace {

// `path` (relative to `dir`; with AT_EMPTY_PATH, `dir` itself) names a
// regular file this process may execute: an exec of it can succeed.
bool executable(int dir, const char* path, int flags) {
  struct stat st {};
  if (::fstatat(dir, path, &st, flags & (AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) != 0) return false;
  if (!S_ISREG(st.st_mode)) return false;
  if ((flags & AT_EMPTY_PATH) != 0 && path[0] == '\0') return (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0;
  return ::faccessat(dir, path, X_OK, AT_EACCESS) == 0;
}

// What execvp would run for `file`: a path as it is, else the first entry of
// PATH (the C library's default path without one) holding it, executable.
bool foundOnPath(const char* file) {
  if (file == nullptr || file[0] == '\0') return false;
  if (std::strchr(file, '/') != nullptr) return executable(AT_FDCWD, file, 0);
  const char* path = std::getenv("PATH");
  if (path == nullptr) path = "/bin:/usr/bin";
  const size_t fileLength = std::strlen(file);
  char candidate[PATH_MAX];
  for (const char* entry = path;; ++entry) {
    const char* end = std::strchr(entry, ':');
    const size_t length = end != nullptr ? static_cast<size_t>(end - entry) : std::strlen(entry);
    // An empty entry is the current directory.
    const char* dir = length == 0 ? "." : entry;
    const size_t dirLength = length == 0 ? 1 : length;
    if (dirLength + 1 + fileLength < sizeof(candidate)) {
      std::memcpy(candidate, dir, dirLength);
      candidate[dirLength] = '/';
      std::memcpy(candidate + dirLength + 1, file, fileLength + 1);
      if (executable(AT_FDCWD, candidate, 0)) return true;
    }
    if (end == nullptr) return false;
    entry = end;
  }
}

std::atomic<bool> gFailureSaid{false};

// The exec failed after the trace was written: the program goes on, its
// trace ending here. Said once.
int afterFailedExec(const char* call, const char* what, int result) {
  const int saved = errno;
  if (!gFailureSaid.exchange(true)) {
    char line[512];
    const int n = std::snprintf(line, sizeof(line),
                                "cuptitrace: %s of %s failed (%s) after the trace was written: it ends here, and "
                                "the program goes on untraced\n",
                                call, what != nullptr ? what : "a file", std::strerror(saved));
    if (n > 0) (void)::write(2, line, static_cast<size_t>(n) < sizeof(line) ? static_cast<size_t>(n) : sizeof(line) - 1);
  }
  errno = saved;
  return result;
}

// Writes the trace when this is the traced process and the exec can succeed;
// true when it was written (a failure must then be said).
bool writeBeforeExec(const char* call, bool canSucceed) {
  if (!tracesThisProcess() || !canSucceed) return false;
  return writeBeforeEnding(EndingKind::Exec, call);
}

// The array forms, each under the name the program called.
int execPath(const char* call, const char* path, char* const argv[], char* const envp[]) {
  const bool written = writeBeforeExec(call, tracesThisProcess() && executable(AT_FDCWD, path, 0));
  const int result = ::execve(path, argv, envp);
  return written ? afterFailedExec(call, path, result) : result;
}
int execSearched(const char* call, const char* file, char* const argv[], char* const envp[]) {
  const bool written = writeBeforeExec(call, tracesThisProcess() && foundOnPath(file));
  const int result = ::execvpe(file, argv, envp);
  return written ? afterFailedExec(call, file, result) : result;
}

int tracedExecve(const char* path, char* const argv[], char* const envp[]) {
  return execPath("execve", path, argv, envp);
}
int tracedExecv(const char* path, char* const argv[]) { return execPath("execv", path, argv, environ); }
int tracedExecvp(const char* file, char* const argv[]) { return execSearched("execvp", file, argv, environ); }
int tracedExecvpe(const char* file, char* const argv[], char* const envp[]) {
  return execSearched("execvpe", file, argv, envp);
}
int tracedFexecve(int fd, char* const argv[], char* const envp[]) {
  const bool written = writeBeforeExec("fexecve", tracesThisProcess() && executable(fd, "", AT_EMPTY_PATH));
  const int result = ::fexecve(fd, argv, envp);
  return written ? afterFailedExec("fexecve", "a file descriptor", result) : result;
}
int tracedExecveat(int dir, const char* path, char* const argv[], char* const envp[], int flags) {
  const bool written = writeBeforeExec("execveat", tracesThisProcess() && executable(dir, path, flags));
  const int result = static_cast<int>(::syscall(SYS_execveat, dir, path, argv, envp, flags));
  return written ? afterFailedExec("execveat", path, result) : result;
}

// execl, execlp and execle take their arguments one by one, up to a null
// pointer: gathered into an array on this stack (no allocation: a vforked
// child may call them), then the array form.
#define GATHER_ARGUMENTS(first, argv)                                                  \
  size_t count = 1;                                                                    \
  {                                                                                    \
    va_list ap;                                                                        \
    va_start(ap, first);                                                               \
    while (va_arg(ap, const char*) != nullptr) ++count;                                \
    va_end(ap);                                                                        \
  }                                                                                    \
  char** argv = static_cast<char**>(alloca((count + 1) * sizeof(char*)));              \
  va_list ap;                                                                          \
  va_start(ap, first);                                                                 \
  argv[0] = const_cast<char*>(first);                                                  \
  for (size_t i = 1; i <= count; ++i) argv[i] = va_arg(ap, char*);

int tracedExecl(const char* path, const char* arg, ...) {
  GATHER_ARGUMENTS(arg, argv)
  va_end(ap);
  return execPath("execl", path, argv, environ);
}
int tracedExeclp(const char* file, const char* arg, ...) {
  GATHER_ARGUMENTS(arg, argv)
  va_end(ap);
  return execSearched("execlp", file, argv, environ);
}
int tracedExecle(const char* path, const char* arg, ...) {
  GATHER_ARGUMENTS(arg, argv)
  char* const* envp = va_arg(ap, char* const*);
  va_end(ap);
  return execPath("execle", path, argv, envp);
}

#undef GATHER_ARGUMENTS

}  // namespace

const GotRedirect* execRedirects(size_t& count) {
  static const GotRedirect kRedirects[] = {
      {"execve", reinterpret_cast<void*>(&tracedExecve)},   {"execv", reinterpret_cast<void*>(&tracedExecv)},
      {"execvp", reinterpret_cast<void*>(&tracedExecvp)},   {"execvpe", reinterpret_cast<void*>(&tracedExecvpe)},
      {"execl", reinterpret_cast<void*>(&tracedExecl)},     {"execlp", reinterpret_cast<void*>(&tracedExeclp)},
      {"execle", reinterpret_cast<void*>(&tracedExecle)},   {"fexecve", reinterpret_cast<void*>(&tracedFexecve)},
      {"execveat", reinterpret_cast<void*>(&tracedExecveat)},
  };
  count = sizeof(kRedirects) / sizeof(kRedirects[0]);
  return kRedirects;
}

}  // namespace cuptitrace
