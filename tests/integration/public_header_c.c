/* The public header from C99 (-pedantic -Werror), linked to nothing but the
 * C library's dl functions.
 *   public_header_c            no library: every call is a quiet no-op
 *   public_header_c --fake     CUDA_INJECTION64_PATH names a stand-in library,
 *                              loaded privately (RTLD_LOCAL) partway, as the
 *                              CUDA driver loads libcuptitrace.so
 *   public_header_c --other    CUDA_INJECTION64_PATH names another tool
 * Prints what failed; exits 0 when everything held. */
#include <cuptitrace/cuptitrace.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                  \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "public_header_c:%d: FAIL %s\n", __LINE__, #cond); \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

static void expectNotTraced(void) {
  uint64_t id = 77;
  EXPECT(cuptitrace_is_traced() == 0);
  EXPECT(cuptitrace_push_external_id(5) == CUPTITRACE_NOT_TRACED);
  EXPECT(cuptitrace_pop_external_id(&id) == CUPTITRACE_NOT_TRACED);
  EXPECT(id == 77); /* untouched */
  EXPECT(cuptitrace_pop_external_id(NULL) == CUPTITRACE_NOT_TRACED);
  EXPECT(cuptitrace_push_scope("scope") == 0);
  EXPECT(cuptitrace_push_scope(NULL) == 0);
  EXPECT(cuptitrace_pop_scope() == CUPTITRACE_NOT_TRACED);
  EXPECT(dlerror() == NULL); /* the lookups left no error behind for the program */
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "--fake") == 0) {
    typedef int (*CallsFn)(void);
    union {
      void* object;
      CallsFn fn;
    } calls;
    void* lib;
    uint64_t id = 0;
    const char* path = getenv("CUDA_INJECTION64_PATH");
    /* Before the "driver" loads it: not traced, and asked again next time. */
    expectNotTraced();
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    EXPECT(lib != NULL);
    if (lib == NULL) return 1;
    EXPECT(cuptitrace_is_traced() == 1);
    EXPECT(cuptitrace_push_external_id(41) == CUPTITRACE_OK);
    EXPECT(cuptitrace_push_external_id(42) == CUPTITRACE_OK);
    EXPECT(cuptitrace_pop_external_id(&id) == CUPTITRACE_OK);
    EXPECT(id == 42);
    EXPECT(cuptitrace_pop_external_id(&id) == CUPTITRACE_OK);
    EXPECT(id == 41);
    EXPECT(cuptitrace_pop_external_id(&id) == CUPTITRACE_ERROR); /* nothing pushed */
    EXPECT(cuptitrace_push_scope("outer") == 1001);
    EXPECT(cuptitrace_pop_scope() == CUPTITRACE_OK);
    calls.object = dlsym(lib, "fake_calls");
    EXPECT(calls.object != NULL);
    if (calls.object != NULL) EXPECT(calls.fn() == 8); /* active, 3 pushes/pops of ids + 1 error, scope, pop */
    EXPECT(dlerror() == NULL);
  } else if (strcmp(mode, "--other") == 0) {
    void* lib = dlopen(getenv("CUDA_INJECTION64_PATH"), RTLD_NOW | RTLD_LOCAL);
    EXPECT(lib != NULL);
    expectNotTraced();
    expectNotTraced(); /* settled: not looked up again */
  } else {
    expectNotTraced();
    expectNotTraced();
  }
  if (failures == 0) printf("public_header_c %s: ok\n", mode);
  return failures == 0 ? 0 : 1;
}
