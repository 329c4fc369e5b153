#include "core/log.h"

#include <spdlog/sinks/stdout_sinks.h>

namespace cuptitrace {

spdlog::logger& logger() {
  // Never destroyed: other code may log while static destructors run at exit.
  static spdlog::logger* instance = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto* l = new spdlog::logger("cuptitrace", std::move(sink));
    l->set_pattern("cuptitrace: %v");
    l->set_level(spdlog::level::warn);
    l->flush_on(spdlog::level::trace);
    return l;
  }();
  return *instance;
}

void setLogLevel(LogLevel level) {
  spdlog::level::level_enum l = spdlog::level::warn;
  switch (level) {
    case LogLevel::Off: l = spdlog::level::off; break;
    case LogLevel::Error: l = spdlog::level::err; break;
    case LogLevel::Warn: l = spdlog::level::warn; break;
    case LogLevel::Info: l = spdlog::level::info; break;
    case LogLevel::Debug: l = spdlog::level::debug; break;
  }
  logger().set_level(l);
}

}  // namespace cuptitrace
