/* Built against an installed cuptitrace (find_package): says what the package
 * named, then pushes a scope. With CUDA_INJECTION64_PATH set it first loads
 * that library privately, as the CUDA driver does. */
#include <cuptitrace/cuptitrace.h>
#include <dlfcn.h>
#include <stdio.h>

int main(void) {
  const char* injected = getenv("CUDA_INJECTION64_PATH");
  printf("version %s\nlibrary %s\nexecutable %s\n", CUPTITRACE_FOUND_VERSION, CUPTITRACE_FOUND_LIBRARY,
         CUPTITRACE_FOUND_EXECUTABLE);
  if (injected != NULL && dlopen(injected, RTLD_NOW | RTLD_LOCAL) == NULL) {
    printf("cannot load %s\n", injected);
    return 1;
  }
  printf("scope %llu\n", (unsigned long long)cuptitrace_push_scope("consumer"));
  printf("pop %d\n", cuptitrace_pop_scope());
  return 0;
}
