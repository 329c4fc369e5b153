/* A stand-in for libcuptitrace.so's public interface, for the header's test
 * (public_header_c --fake): answers as the library does, counts calls. */
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

static int calls = 0;
static uint64_t stack[16];
static int depth = 0;

EXPORT uint32_t cuptitrace_api_version(void) { return 1; }
EXPORT int cuptitrace_v1_active(void) { ++calls; return 1; }
EXPORT int cuptitrace_v1_push_external_id(uint64_t id) {
  ++calls;
  if (depth == 16) return 2;
  stack[depth++] = id;
  return 0;
}
EXPORT int cuptitrace_v1_pop_external_id(uint64_t* id) {
  ++calls;
  if (depth == 0) return 2;
  --depth;
  if (id) *id = stack[depth];
  return 0;
}
EXPORT uint64_t cuptitrace_v1_push_scope(const char* name) { ++calls; return name ? 1001 : 0; }
EXPORT int cuptitrace_v1_pop_scope(void) { ++calls; return 0; }
EXPORT int fake_calls(void) { return calls; }
