// A program that ends the way argv[1] says, with the tracer's lifecycle code
// loaded privately partway (tests/integration/endings_sink.cpp), to check
// each ending without a GPU (tests/integration/endings.sh says what each
// mode must give):
//   endings_probe SINK LOG WRITE_MS MODE [ARG]
// WRITE_MS: N ms asleep, or busy:N ms of processor time. ARG: the journal's
// path (again), a file (exec-noexec, xfsz), an object to load first (relro).
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern char** environ;

// sigset() and siginterrupt() are obsolescent, and programs still call them.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

volatile sig_atomic_t gCaught = 0;
void flag(int sig) { gCaught = sig; }

void installFlag(int sig, int flags) {
  struct sigaction a {};
  a.sa_handler = flag;
  sigemptyset(&a.sa_mask);
  a.sa_flags = flags;
  sigaction(sig, &a, nullptr);
}

// The disposition the kernel holds, past any redirection of sigaction().
void* kernelHandler(int sig) {
  struct {
    void* handler;
    unsigned long flags;
    void* restorer;
    unsigned long mask;
  } k{};
  if (syscall(SYS_rt_sigaction, sig, nullptr, &k, sizeof(k.mask)) != 0) return nullptr;
  return k.handler;
}

// A second process sends `sig` to this one `times` times, `gapMs` apart.
void sendFromOutside(int sig, int times, int gapMs, int delayMs) {
  const pid_t target = getpid();
  if (fork() != 0) return;
  usleep(static_cast<useconds_t>(delayMs) * 1000);
  for (int i = 0; i < times; ++i) {
    if (i > 0 && gapMs > 0) usleep(static_cast<useconds_t>(gapMs) * 1000);
    kill(target, sig);
  }
  _exit(0);
}

[[noreturn]] void sleepThenFail(const char* mode) {
  for (int i = 0; i < 20; ++i) sleep(1);
  std::fprintf(stderr, "endings_probe %s: still alive\n", mode);
  std::exit(1);
}

[[noreturn]] void blockInRead() {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  char byte;
  const ssize_t n = read(fds[0], &byte, 1);
  std::printf("read: %zd, %s\n", n, n < 0 && errno == EINTR ? "EINTR" : "restarted");
  std::exit(n < 0 && errno == EINTR && gCaught != 0 ? 8 : 1);
}

int view() {
  struct sigaction old {};
  sigaction(SIGINT, nullptr, &old);
  if (old.sa_handler != SIG_DFL) return std::printf("view: SIGINT not SIG_DFL at first\n"), 1;
  installFlag(SIGINT, 0);
  sigaction(SIGINT, nullptr, &old);
  if (old.sa_handler != flag) return std::printf("view: the program's handler is not what it sees\n"), 1;
  if (kernelHandler(SIGINT) == reinterpret_cast<void*>(flag)) return std::printf("view: the kernel runs the program's handler\n"), 1;
  if (signal(SIGINT, SIG_IGN) != flag) return std::printf("view: signal() did not return the handler\n"), 1;
  if (kernelHandler(SIGINT) != reinterpret_cast<void*>(SIG_IGN)) return std::printf("view: SIG_IGN not in the kernel\n"), 1;
  if (signal(SIGINT, SIG_DFL) != SIG_IGN) return std::printf("view: signal() did not return SIG_IGN\n"), 1;
  if (kernelHandler(SIGINT) == reinterpret_cast<void*>(SIG_DFL)) return std::printf("view: SIG_DFL reached the kernel\n"), 1;
  // A signal the tracer does not answer goes straight through.
  installFlag(SIGWINCH, 0);
  if (kernelHandler(SIGWINCH) != reinterpret_cast<void*>(flag)) return std::printf("view: SIGWINCH not the program's\n"), 1;
  std::printf("view ok\n");
  return 0;
}

// A vforked child resets SIGINT before exec, as CPython's subprocess does:
// the parent's view must not change, and the child's _exit writes nothing.
int vforked() {
  installFlag(SIGINT, 0);
  const pid_t child = vfork();
  if (child == 0) {
    signal(SIGINT, SIG_DFL);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  struct sigaction now {};
  sigaction(SIGINT, nullptr, &now);
  std::printf("vfork: child %d, parent's view %s\n", WEXITSTATUS(status), now.sa_handler == flag ? "kept" : "changed");
  return now.sa_handler == flag ? 0 : 1;
}

// A forked child ended by SIGTERM ends as the signal says, writing nothing.
int forked() {
  const pid_t child = fork();
  if (child == 0) {
    for (int i = 0; i < 20; ++i) sleep(1);
    _exit(1);
  }
  usleep(200000);
  kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("fork: child %s %d\n", WIFSIGNALED(status) ? "killed by" : "exited", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM ? 0 : 1;
}

// A one-shot handler that logs and returns: the fault comes back at once.
void logFault(int) {
  static const char kLine[] = "fault handler ran\n";
  (void)write(1, kLine, sizeof(kLine) - 1);
}

// Threads inside calls when the signal comes: a blocking read, short sleeps,
// writes.
void* readForever(void*) {
  int fds[2];
  if (pipe(fds) == 0) {
    char byte;
    while (true) (void)read(fds[0], &byte, 1);
  }
  return nullptr;
}
void* napForever(void*) {
  while (true) usleep(1000);
  return nullptr;
}
void* writeForever(void*) {
  const int fd = open("/dev/null", O_WRONLY);
  char block[4096] = {};
  while (true) (void)write(fd, block, sizeof(block));
  return nullptr;
}

// Writes lines to stdout until a write fails: exit 3 (untraced, SIGPIPE
// ends the program first unless it ignores the signal).
[[noreturn]] void writeUntilFailure(int fd) {
  static const char kLine[] = "y\n";
  for (long i = 0;; ++i) {
    if (write(fd, kLine, sizeof(kLine) - 1) < 0) {
      std::fprintf(stderr, "write failed: %s\n", std::strerror(errno));
      std::exit(3);
    }
  }
}

// The signals below SIGRTMIN, kept by the C library (thread cancellation,
// setxid), never run the tracer's handler, which SIGRTMIN runs.
int reservedUntouched() {
  void* ours = kernelHandler(SIGRTMIN);
  if (ours == reinterpret_cast<void*>(SIG_DFL)) return std::printf("reserved: SIGRTMIN is not answered\n"), 1;
  for (int sig = 32; sig < SIGRTMIN; ++sig)
    if (kernelHandler(sig) == ours) return std::printf("reserved: signal %d runs the tracer's handler\n", sig), 1;
  std::printf("reserved: SIGRTMIN answered, the %d signals below it left to the C library\n", SIGRTMIN - 32);
  return 0;
}

// The last page of the victim's RELRO (tests/integration/relro_victim.c).
int findRelroPage(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "relro_victim") == nullptr) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_GNU_RELRO) continue;
    const uintptr_t end = info->dlpi_addr + p.p_vaddr + p.p_memsz;
    *static_cast<uintptr_t*>(data) = (end - 1) & ~static_cast<uintptr_t>(sysconf(_SC_PAGESIZE) - 1);
  }
  return 1;
}

// "rw-p" and the like, for the mapping holding `page`.
void permsOf(uintptr_t page, char (&perms)[5]) {
  std::strcpy(perms, "?");
  FILE* maps = std::fopen("/proc/self/maps", "r");
  char line[4096];
  while (maps != nullptr && std::fgets(line, sizeof(line), maps) != nullptr) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line, "%lx-%lx %4s", &start, &end, perms) == 3 && page >= start && page < end) break;
    std::strcpy(perms, "?");
  }
  if (maps != nullptr) std::fclose(maps);
}

// The capture toggle keeps toggling whatever the program sets for its signal.
int toggle(void* sink) {
  auto toggles = reinterpret_cast<int (*)()>(dlsym(sink, "endings_sink_toggles"));
  installFlag(SIGUSR2, 0);
  raise(SIGUSR2);
  const int first = toggles();
  if (first != 1 || gCaught != SIGUSR2) return std::printf("toggle: %d toggles, handler %d\n", first, static_cast<int>(gCaught)), 1;
  signal(SIGUSR2, SIG_DFL);
  raise(SIGUSR2);  // untraced this would end the program; traced it toggles
  const int second = toggles();
  std::printf("toggle: %d toggles, the program's handler ran, SIG_DFL kept the toggle\n", second);
  return second == 2 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return std::fprintf(stderr, "usage: endings_probe SINK LOG WRITE_MS MODE\n"), 2;
  const char* mode = argv[4];
  auto is = [mode](const char* m) { return std::strcmp(mode, m) == 0; };
  const char* arg = argc > 5 ? argv[5] : nullptr;
  // Before tracing starts.
  if (is("read-early")) installFlag(SIGINT, 0);
  if (is("segv-once")) {  // logs and returns, installed one-shot
    struct sigaction a {};
    a.sa_handler = logFault;
    sigemptyset(&a.sa_mask);
    a.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &a, nullptr);
  }
  if (is("segv-sysv")) sysv_signal(SIGSEGV, logFault);  // ISO C's signal()
  if (is("pipe-ignored")) signal(SIGPIPE, SIG_IGN);
  // The loader leaves the last RELRO page writable where it is partial (the
  // common page size smaller than the machine's, .data on that page): made
  // so here, whatever this linker did.
  uintptr_t relroPage = 0;
  char permsBefore[5] = "?";
  if (is("relro")) {
    if (dlopen(arg, RTLD_NOW | RTLD_GLOBAL) == nullptr) return std::fprintf(stderr, "endings_probe: %s\n", dlerror()), 2;
    dl_iterate_phdr(findRelroPage, &relroPage);
    if (relroPage == 0 || mprotect(reinterpret_cast<void*>(relroPage), sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE) != 0)
      return std::printf("relro: no RELRO page in the victim\n"), 1;
    permsOf(relroPage, permsBefore);
  }
  // Loaded privately, partway, as the CUDA driver loads the tracer.
  void* sink = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  auto start = sink != nullptr ? reinterpret_cast<void (*)(const char*, const char*, const char*)>(dlsym(sink, "endings_sink_start")) : nullptr;
  if (start == nullptr) return std::fprintf(stderr, "endings_probe: %s\n", dlerror()), 2;
  start(argv[2], argv[3], is("again") ? arg : nullptr);
  std::setvbuf(stdout, nullptr, _IONBF, 0);

  if (is("twice")) {  // the process and its group: one ending
    sendFromOutside(SIGTERM, 2, 0, 100);
    sleepThenFail(mode);
  }
  if (is("again")) {  // a second Ctrl-C seconds later cuts the writing short
    sendFromOutside(SIGINT, 2, 2500, 100);
    sleepThenFail(mode);
  }
  if (is("reraise")) {
    installFlag(SIGINT, 0);
    sendFromOutside(SIGINT, 1, 0, 100);
    while (gCaught == 0) pause();
    std::printf("handled %d\n", static_cast<int>(gCaught));
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
    sleepThenFail(mode);
  }
  if (is("resethand")) {  // the handler runs once, the second signal ends the program
    installFlag(SIGTERM, SA_RESETHAND);
    sendFromOutside(SIGTERM, 2, 2500, 100);
    while (gCaught == 0) pause();
    std::printf("handled %d\n", static_cast<int>(gCaught));
    sleepThenFail(mode);
  }
  if (is("read") || is("read-early")) {
    if (is("read")) installFlag(SIGINT, 0);
    sendFromOutside(SIGINT, 1, 0, 200);
    blockInRead();
  }
  if (is("_exit")) _exit(4);
  if (is("Exit")) _Exit(6);
  if (is("quick_exit")) std::quick_exit(7);
  if (is("exec")) {  // the process becomes another program: its trace is written first
    char* args[] = {const_cast<char*>("true"), nullptr};
    execv("/bin/true", args);
    return 1;
  }
  if (is("exec-fail")) {
    char* args[] = {const_cast<char*>("missing"), nullptr};
    execv("/nonexistent/program", args);
    std::printf("exec failed: %s\n", std::strerror(errno));
    return 5;
  }
  if (is("exec-noexec")) {  // executable, but no program: the trace is written, then exec fails
    char* args[] = {const_cast<char*>("noexec"), nullptr};
    execv(arg, args);
    std::printf("exec failed: %s\n", std::strerror(errno));
    return 5;
  }
  // The exec calls the C library makes of its own: each runs sh, which
  // exits with the status its arguments (or its environment) say.
  if (is("execl")) execl("/bin/sh", "sh", "-c", "exit 3", static_cast<char*>(nullptr));
  if (is("execlp")) execlp("sh", "sh", "-c", "exit 4", static_cast<char*>(nullptr));
  if (is("execle")) {
    char* env[] = {const_cast<char*>("CODE=9"), nullptr};
    execle("/bin/sh", "sh", "-c", "exit $CODE", static_cast<char*>(nullptr), env);
  }
  if (is("fexecve")) {
    char* args[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), const_cast<char*>("exit 5"), nullptr};
    fexecve(open("/bin/sh", O_RDONLY | O_CLOEXEC), args, environ);
  }
  if (is("execveat")) {
    char* args[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), const_cast<char*>("exit 6"), nullptr};
    execveat(AT_FDCWD, "/bin/sh", args, environ, 0);
  }
  if (std::strncmp(mode, "exec", 4) == 0 || is("fexecve")) {
    std::printf("%s failed: %s\n", mode, std::strerror(errno));
    return 1;
  }
  if (is("sigset")) {  // System V's sigset: the tracer's handler stays, SIG_DFL then ends with a trace
    sigset(SIGINT, flag);
    if (kernelHandler(SIGINT) == reinterpret_cast<void*>(flag)) return std::printf("sigset: the kernel runs the program's handler\n"), 1;
    raise(SIGINT);
    if (gCaught != SIGINT) return std::printf("sigset: the program's handler did not run\n"), 1;
    sigset(SIGINT, SIG_DFL);
    std::printf("sigset: handler ran, SIG_DFL set\n");
    sendFromOutside(SIGINT, 1, 0, 100);
    sleepThenFail(mode);
  }
  if (is("siginterrupt")) {  // a restarted handler made to interrupt: read() gets EINTR
    installFlag(SIGINT, SA_RESTART);
    siginterrupt(SIGINT, 1);
    if (kernelHandler(SIGINT) == reinterpret_cast<void*>(flag)) return std::printf("siginterrupt: the kernel runs the program's handler\n"), 1;
    sendFromOutside(SIGINT, 1, 0, 200);
    blockInRead();
  }
  if (is("segv-once") || is("segv-sysv")) *static_cast<volatile int*>(nullptr) = 1;
  if (is("wait")) {  // threads inside calls; a signal from outside ends the program
    pthread_t t;
    pthread_create(&t, nullptr, readForever, nullptr);
    pthread_create(&t, nullptr, napForever, nullptr);
    pthread_create(&t, nullptr, writeForever, nullptr);
    std::printf("READY\n");
    sleepThenFail(mode);
  }
  if (is("alarm")) {
    alarm(1);
    sleepThenFail(mode);
  }
  if (is("xcpu"))  // under a soft processor-time limit of 1 s
    for (volatile unsigned long i = 0;; ++i) {
    }
  if (is("xfsz")) {  // under a file size limit
    const int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    writeUntilFailure(fd);
  }
  if (is("pipe") || is("pipe-ignored")) writeUntilFailure(1);
  if (is("reserved")) return reservedUntouched();
  if (is("toggle")) return toggle(sink);
  if (is("relro")) {
    auto bump = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "relro_victim_bump"));
    auto exitAddress = reinterpret_cast<void* (*)()>(dlsym(RTLD_DEFAULT, "relro_victim_exit"));
    if (bump == nullptr || exitAddress == nullptr) return std::printf("relro: no victim\n"), 1;
    if (exitAddress() == dlsym(RTLD_NEXT, "_exit")) return std::printf("relro: the victim's _exit was not redirected\n"), 1;
    char permsAfter[5];
    permsOf(relroPage, permsAfter);
    std::printf("relro: _exit redirected; the page was %s, is %s; data bumped to %d\n", permsBefore, permsAfter, bump());
    return std::strcmp(permsBefore, permsAfter) == 0 ? 0 : 1;
  }
  if (is("view")) return view();
  if (is("vfork")) return vforked();
  if (is("fork")) return forked();
  std::fprintf(stderr, "endings_probe: unknown mode %s\n", mode);
  return 2;
}
