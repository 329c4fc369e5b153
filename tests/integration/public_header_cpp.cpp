// The public header from C++ (-pedantic -Werror): the C functions and the
// RAII scope, with no library: quiet no-ops.
#include <cuptitrace/cuptitrace.h>

#include <cstdio>

int main() {
  int failures = 0;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "public_header_cpp: FAIL %s\n", what);
      ++failures;
    }
  };
  {
    const cuptitrace::Scope scope("forward");
    expect(scope.id() == 0, "scope.id() == 0 without the library");
    expect(cuptitrace_push_external_id(3) == CUPTITRACE_NOT_TRACED, "push_external_id not traced");
  }
  expect(cuptitrace_is_traced() == 0, "is_traced() == 0");
  if (failures == 0) std::printf("public_header_cpp: ok\n");
  return failures == 0 ? 0 : 1;
}
