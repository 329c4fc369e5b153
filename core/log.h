// The library's one logger: named "cuptitrace", on stderr, level warn unless
// CUPTITRACE_LOG_LEVEL says otherwise. Nothing is logged per record.
#pragma once

#include <spdlog/spdlog.h>

#include "core/config.h"

namespace cuptitrace {

spdlog::logger& logger();
void setLogLevel(LogLevel level);

}  // namespace cuptitrace
