// A program that ends the way argv[1] says, with the tracer's lifecycle code
// loaded privately partway (tests/integration/endings_sink.cpp), to check
// each ending without a GPU (tests/integration/endings.sh says what each
// mode must give):
//   endings_probe SINK LOG WRITE_MS MODE
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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
  installFlag(SIGUSR1, 0);
  if (kernelHandler(SIGUSR1) != reinterpret_cast<void*>(flag)) return std::printf("view: SIGUSR1 not the program's\n"), 1;
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return std::fprintf(stderr, "usage: endings_probe SINK LOG WRITE_MS MODE\n"), 2;
  const char* mode = argv[4];
  auto is = [mode](const char* m) { return std::strcmp(mode, m) == 0; };
  if (is("read-early")) installFlag(SIGINT, 0);
  // Loaded privately, partway, as the CUDA driver loads the tracer.
  void* sink = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  auto start = sink != nullptr ? reinterpret_cast<void (*)(const char*, int, const char*)>(dlsym(sink, "endings_sink_start")) : nullptr;
  if (start == nullptr) return std::fprintf(stderr, "endings_probe: %s\n", dlerror()), 2;
  start(argv[2], std::atoi(argv[3]), argc > 5 ? argv[5] : nullptr);
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
  if (is("view")) return view();
  if (is("vfork")) return vforked();
  if (is("fork")) return forked();
  std::fprintf(stderr, "endings_probe: unknown mode %s\n", mode);
  return 2;
}
