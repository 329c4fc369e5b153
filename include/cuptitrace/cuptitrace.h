/* cuptitrace.h: attribute GPU work to the program's own operations.
 *
 * While an external id is pushed on a thread, every CUDA API call the thread
 * makes carries it, and so does the GPU work the call launched: in the trace
 * the call, its kernels, copies and sets show it as argument "external_id"
 * (like the "External id" of the PyTorch profiler), and the CSV tables hold
 * it too. A named scope does the same with a fresh id and a name, and is
 * drawn as a range of NVTX domain "cuptitrace" on the thread's track; its
 * name shows as argument "scope".
 *
 *     uint64_t id = cuptitrace_push_scope("forward");
 *     model_forward();                  // kernels launched here carry id and "forward"
 *     cuptitrace_pop_scope();
 *
 * Header only, for C and C++; nothing to link (dlopen and dlsym come from the
 * C library since glibc 2.34, from libdl before; every CUDA program links
 * them already). The functions find libcuptitrace.so at run time (it is
 * loaded privately by the CUDA driver, through CUDA_INJECTION64_PATH) and,
 * when the program runs without it, do nothing and return
 * CUPTITRACE_NOT_TRACED. The library is loaded when CUDA starts (the first
 * CUDA call): pushes made before that are not recorded.
 *
 * Pushes and pops are per thread and pair up on it, innermost first; ids and
 * scopes have separate stacks. Thread-safe. Never blocks on other threads.
 */
#ifndef CUPTITRACE_CUPTITRACE_H
#define CUPTITRACE_CUPTITRACE_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the library's interface that this header uses. The library
 * reports its own through cuptitrace_api_version(); it must be at least this. */
#define CUPTITRACE_API_VERSION 1

/* What the functions return. */
#define CUPTITRACE_OK 0         /* done */
#define CUPTITRACE_NOT_TRACED 1 /* the program is not traced: nothing was done */
#define CUPTITRACE_ERROR 2      /* traced, but refused (a pop with nothing pushed) */

/* ---- The library's exported interface (looked up at run time) -------------- */

typedef uint32_t (*cuptitrace_api_version_fn)(void);           /* "cuptitrace_api_version" */
typedef int (*cuptitrace_v1_active_fn)(void);                   /* "cuptitrace_v1_active" */
typedef int (*cuptitrace_v1_push_external_id_fn)(uint64_t);     /* "cuptitrace_v1_push_external_id" */
typedef int (*cuptitrace_v1_pop_external_id_fn)(uint64_t*);     /* "cuptitrace_v1_pop_external_id" */
typedef uint64_t (*cuptitrace_v1_push_scope_fn)(const char*);   /* "cuptitrace_v1_push_scope" */
typedef int (*cuptitrace_v1_pop_scope_fn)(void);                /* "cuptitrace_v1_pop_scope" */
/* Python lines: a range of NVTX domain "python" named by the innermost frames
 * of user code ("train.py:42 forward"); the CUDA calls made inside carry it.
 * The Python start-up hook (--python-backtrace) calls these through ctypes;
 * they are not in cuptitrace_v1_functions. */
typedef int (*cuptitrace_v1_push_python_fn)(const char*);      /* "cuptitrace_v1_push_python" */
typedef int (*cuptitrace_v1_pop_python_fn)(void);               /* "cuptitrace_v1_pop_python" */

struct cuptitrace_v1_functions {
  cuptitrace_v1_active_fn active;
  cuptitrace_v1_push_external_id_fn push_external_id;
  cuptitrace_v1_pop_external_id_fn pop_external_id;
  cuptitrace_v1_push_scope_fn push_scope;
  cuptitrace_v1_pop_scope_fn pop_scope;
};

#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define CUPTITRACE_INLINE static inline
#else
#define CUPTITRACE_INLINE static __inline__
#endif

#ifdef RTLD_DEFAULT
#define CUPTITRACE_RTLD_DEFAULT RTLD_DEFAULT
#else
#define CUPTITRACE_RTLD_DEFAULT ((void*)0) /* glibc's value, defined only with _GNU_SOURCE */
#endif

/* dlsym's answer as a function pointer, through a union: a cast from an
 * object pointer is not ISO C, and -pedantic says so. */
union cuptitrace_detail_symbol {
  void* object;
  cuptitrace_api_version_fn api_version;
  cuptitrace_v1_active_fn active;
  cuptitrace_v1_push_external_id_fn push_external_id;
  cuptitrace_v1_pop_external_id_fn pop_external_id;
  cuptitrace_v1_push_scope_fn push_scope;
  cuptitrace_v1_pop_scope_fn pop_scope;
};

/* Looks the library up. 1: found and filled in; 0: not loaded yet, ask again
 * later; -1: it will not come (nothing names it, or it lacks this interface). */
CUPTITRACE_INLINE int cuptitrace_detail_find(struct cuptitrace_v1_functions* f) {
  static const char* const variables[2] = {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"};
  union cuptitrace_detail_symbol s;
  void* handle = CUPTITRACE_RTLD_DEFAULT; /* preloaded, or linked */
  int named = 0, i;
  s.object = dlsym(handle, "cuptitrace_api_version");
  for (i = 0; s.object == NULL && i < 2; ++i) {
    const char* path = getenv(variables[i]);
    if (path == NULL || path[0] == '\0') continue;
    named = 1;
    /* Already loaded by the driver or by NVTX; never loaded from here. */
    handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == NULL) continue;
    s.object = dlsym(handle, "cuptitrace_api_version");
    if (s.object == NULL) { /* another tool: that will not change */
      (void)dlerror();
      return -1;
    }
  }
  (void)dlerror(); /* a failed lookup leaves a message the program did not cause */
  if (s.object == NULL) return named ? 0 : -1;
  if (s.api_version() < CUPTITRACE_API_VERSION) return -1;
  s.object = dlsym(handle, "cuptitrace_v1_active");
  f->active = s.active;
  s.object = dlsym(handle, "cuptitrace_v1_push_external_id");
  f->push_external_id = s.push_external_id;
  s.object = dlsym(handle, "cuptitrace_v1_pop_external_id");
  f->pop_external_id = s.pop_external_id;
  s.object = dlsym(handle, "cuptitrace_v1_push_scope");
  f->push_scope = s.push_scope;
  s.object = dlsym(handle, "cuptitrace_v1_pop_scope");
  f->pop_scope = s.pop_scope;
  (void)dlerror();
  if (!f->active || !f->push_external_id || !f->pop_external_id || !f->push_scope || !f->pop_scope)
    return -1;
  return 1;
}

/* The library's functions, or NULL while it is not there. Looked up once per
 * file that includes this header; until the library is loaded (a program
 * that pushes before its first CUDA call), looked up again on each call. */
CUPTITRACE_INLINE const struct cuptitrace_v1_functions* cuptitrace_detail_functions(void) {
  /* 0: not looked up yet, 1: found, 2: never there, 3: being looked up */
  static int state;
  static struct cuptitrace_v1_functions functions;
  int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
  while (s != 1 && s != 2) {
    int expected = 0;
    if (s == 0 && __atomic_compare_exchange_n(&state, &expected, 3, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      const int found = cuptitrace_detail_find(&functions);
      s = found > 0 ? 1 : found < 0 ? 2 : 0;
      __atomic_store_n(&state, s, __ATOMIC_RELEASE);
      if (s == 0) return NULL;
      break;
    }
    s = __atomic_load_n(&state, __ATOMIC_ACQUIRE); /* another thread is looking: wait for it */
  }
  return s == 1 ? &functions : NULL;
}

/* ---- The API ------------------------------------------------------------------ */

/* 1 when the program is traced by cuptitrace (and CUDA has started), else 0. */
CUPTITRACE_INLINE int cuptitrace_is_traced(void) {
  const struct cuptitrace_v1_functions* f = cuptitrace_detail_functions();
  return f != NULL && f->active();
}

/* Attaches `id` to the CUDA calls this thread makes until it is popped. */
CUPTITRACE_INLINE int cuptitrace_push_external_id(uint64_t id) {
  const struct cuptitrace_v1_functions* f = cuptitrace_detail_functions();
  return f != NULL ? f->push_external_id(id) : CUPTITRACE_NOT_TRACED;
}

/* Pops this thread's innermost id; stores it in *id when id is not NULL. */
CUPTITRACE_INLINE int cuptitrace_pop_external_id(uint64_t* id) {
  const struct cuptitrace_v1_functions* f = cuptitrace_detail_functions();
  return f != NULL ? f->pop_external_id(id) : CUPTITRACE_NOT_TRACED;
}

/* Opens a scope named `name` (copied) on this thread: a fresh id (returned;
 * 0 when not traced) attached to the CUDA calls it makes until the scope is
 * popped, and a range on its track. */
CUPTITRACE_INLINE uint64_t cuptitrace_push_scope(const char* name) {
  const struct cuptitrace_v1_functions* f = cuptitrace_detail_functions();
  return f != NULL ? f->push_scope(name) : 0;
}

/* Closes this thread's innermost scope. */
CUPTITRACE_INLINE int cuptitrace_pop_scope(void) {
  const struct cuptitrace_v1_functions* f = cuptitrace_detail_functions();
  return f != NULL ? f->pop_scope() : CUPTITRACE_NOT_TRACED;
}

#ifdef __cplusplus
} /* extern "C" */

/* C++: a scope that closes at the end of the block. */
namespace cuptitrace {
class Scope {
 public:
  explicit Scope(const char* name) noexcept : id_(cuptitrace_push_scope(name)) {}
  ~Scope() {
    if (id_ != 0) cuptitrace_pop_scope();
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  uint64_t id() const noexcept { return id_; }

 private:
  uint64_t id_;
};
}  /* namespace cuptitrace */
#endif

#endif /* CUPTITRACE_CUPTITRACE_H */
