/* Preloaded ahead of libcupti, this answers cuptiGetVersion with the version
 * in FAKE_CUPTI_VERSION: the tracer then sees "another release" of CUPTI
 * without one being installed. */
#include <stdint.h>
#include <stdlib.h>

__attribute__((visibility("default"))) int cuptiGetVersion(uint32_t* version) {
  const char* text = getenv("FAKE_CUPTI_VERSION");
  *version = text != NULL ? (uint32_t)strtoul(text, NULL, 10) : 0u;
  return 0; /* CUPTI_SUCCESS */
}
