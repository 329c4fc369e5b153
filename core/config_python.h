// The configuration of the Python start-up hook (python/cuptitrace_pyhook):
// CUPTITRACE_PYTORCH and CUPTITRACE_PYTHON_BACKTRACE[_DEPTH]. The hook reads
// the variables itself; the library keeps them in the trace's configuration,
// and the command puts the hook on the program's PYTHONPATH when one is on.
// Internal to core/config.cpp.
#pragma once

#include <string>
#include <string_view>

#include "core/config.h"

namespace cuptitrace::config_python {

bool applyPytorch(std::string_view value, Config& c);
bool applyPythonBacktrace(std::string_view value, Config& c);
bool applyPythonBacktraceDepth(std::string_view value, Config& c);

const char* pytorchName(PytorchMode mode);  // "off", "ops", "shapes"

}  // namespace cuptitrace::config_python
