// Any bytes as a native trace: the reader never crashes, and what it accepts
// writes back to a trace it accepts again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "core/trace.h"
#include "exporters/native/native.h"

using namespace cuptitrace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  Trace trace;
  std::string error;
  if (!readNative(in, trace, error)) {
    if (error.empty()) std::abort();  // a refusal always says why
    return 0;
  }
  std::ostringstream out;
  writeNative(trace, out);
  std::istringstream again(out.str());
  Trace reread;
  if (!readNative(again, reread, error)) std::abort();
  return 0;
}
