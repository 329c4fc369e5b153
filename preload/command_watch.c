/* libcuptitrace-watch.so: preloaded by the cuptitrace command into the
 * program it starts, and into that process alone. When that process ends
 * without ever having started CUDA (so the CUDA driver never loaded the
 * tracer), one line says so: `cuptitrace -- /bin/true` is not silent.
 *
 * It takes itself out of LD_PRELOAD as it loads, so the processes the
 * program starts never load it; the process the command started is the one
 * whose pid the command left in CUPTITRACE_COMMAND_PID (exec keeps the pid).
 * Plain C, no C++ runtime, nothing exported. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int gWatching;
static pid_t gWatchedPid; /* a forked copy of the process has another pid, and says nothing */

/* LD_PRELOAD without this library (separators: colons and spaces). */
static void leavePreloadList(void) {
  Dl_info self;
  const char* list = getenv("LD_PRELOAD");
  if (list == NULL || dladdr((void*)leavePreloadList, &self) == 0 || self.dli_fname == NULL) return;
  const char* base = strrchr(self.dli_fname, '/');
  base = base != NULL ? base + 1 : self.dli_fname;
  size_t n = strlen(list);
  char* kept = malloc(n + 1);
  if (kept == NULL) return;
  size_t used = 0;
  const char* at = list;
  while (*at != '\0') {
    size_t len = strcspn(at, ": ");
    if (len > 0) {
      const char* slash = NULL;
      for (const char* p = at; p < at + len; ++p)
        if (*p == '/') slash = p;
      const char* name = slash != NULL ? slash + 1 : at;
      const size_t nameLen = (size_t)(at + len - name);
      if (!(nameLen == strlen(base) && strncmp(name, base, nameLen) == 0)) {
        if (used > 0) kept[used++] = ':';
        memcpy(kept + used, at, len);
        used += len;
      }
    }
    at += len;
    if (*at != '\0') ++at;
  }
  kept[used] = '\0';
  if (used == 0) unsetenv("LD_PRELOAD");
  else setenv("LD_PRELOAD", kept, 1);
  free(kept);
}

static int tracerMapped(struct dl_phdr_info* info, size_t size, void* found) {
  (void)size;
  if (info->dlpi_name != NULL && strstr(info->dlpi_name, "libcuptitrace.so") != NULL) {
    *(int*)found = 1;
    return 1;
  }
  return 0;
}

static int isOn(const char* value) {
  return value != NULL && (strcmp(value, "1") == 0 || strcasecmp(value, "true") == 0 ||
                           strcasecmp(value, "yes") == 0 || strcasecmp(value, "on") == 0);
}

__attribute__((constructor)) static void watchStart(void) {
  const int saved = errno;
  const char* pid = getenv("CUPTITRACE_COMMAND_PID");
  gWatchedPid = getpid();
  gWatching = pid != NULL && atol(pid) == (long)gWatchedPid;
  leavePreloadList();
  unsetenv("CUPTITRACE_COMMAND_PID"); /* the program's children are not the command's own */
  errno = saved;
}

__attribute__((destructor)) static void watchEnd(void) {
  if (!gWatching || getpid() != gWatchedPid) return;
  int found = 0;
  dl_iterate_phdr(tracerMapped, &found);
  if (found || isOn(getenv("CUPTITRACE_QUIET"))) return;
  fprintf(stderr, "cuptitrace: %s (pid %ld) never used CUDA: nothing to trace\n", program_invocation_short_name,
          (long)getpid());
}
