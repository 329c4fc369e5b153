#include "core/config_python.h"

#include "core/parse.h"

namespace cuptitrace::config_python {

// Frames of user code a Python line may name.
constexpr uint32_t kMaxBacktraceDepth = 64;

bool applyPytorch(std::string_view value, Config& c) {
  const auto items = splitList(value);
  if (items.size() != 1) return false;
  if (items[0] == "off") c.pytorch = PytorchMode::Off;
  else if (items[0] == "ops") c.pytorch = PytorchMode::Ops;
  else if (items[0] == "shapes") c.pytorch = PytorchMode::Shapes;
  else return false;
  return true;
}

bool applyPythonBacktrace(std::string_view value, Config& c) {
  const auto v = parseBool(value);
  if (!v) return false;
  c.pythonBacktrace = *v;
  return true;
}

bool applyPythonBacktraceDepth(std::string_view value, Config& c) {
  if (value.empty() || value.size() > 2) return false;
  uint32_t n = 0;
  for (const char ch : value) {
    if (ch < '0' || ch > '9') return false;
    n = n * 10 + static_cast<uint32_t>(ch - '0');
  }
  if (n < 1 || n > kMaxBacktraceDepth) return false;
  c.pythonBacktraceDepth = n;
  return true;
}

const char* pytorchName(PytorchMode mode) {
  switch (mode) {
    case PytorchMode::Ops: return "ops";
    case PytorchMode::Shapes: return "shapes";
    case PytorchMode::Off: break;
  }
  return "off";
}

}  // namespace cuptitrace::config_python
