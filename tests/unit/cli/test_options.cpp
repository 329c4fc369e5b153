#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "cli/options.h"

using namespace cuptitrace;

namespace {
std::string readme() {
  std::ifstream in(std::string(CUPTITRACE_SOURCE_DIR) + "/README.md");
  REQUIRE(in);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
}  // namespace

TEST_CASE("cli: every variable has a flag, and the flag leads back to it") {
  for (const auto& var : configTable()) {
    const std::string flag = cli::flagFor(var);
    INFO(var.name << " -> " << flag);
    CHECK(flag.rfind("--", 0) == 0);
    CHECK(flag.find('_') == std::string::npos);
    REQUIRE(cli::varForFlag(flag) == &var);
  }
  CHECK(cli::flagFor(*cli::varForFlag("--buffer-size")) == "--buffer-size");
  CHECK(std::string(cli::varForFlag("-o")->name) == "CUPTITRACE_OUTPUT");
  CHECK(cli::varForFlag("--no-such-flag") == nullptr);
}

TEST_CASE("cli: --help lists every variable with its default") {
  const std::string help = cli::helpText();
  for (const auto& var : configTable()) {
    INFO(var.name);
    CHECK_THAT(help, Catch::Contains(var.name));
    CHECK_THAT(help, Catch::Contains(std::string("(default: ") + var.defaultValue + ")"));
    CHECK_THAT(help, Catch::Contains(cli::flagFor(var)));
  }
}

TEST_CASE("README: the variable reference is the one the configuration table makes") {
  // Regenerate with: cuptitrace --env-markdown
  CHECK_THAT(readme(), Catch::Contains(cli::envMarkdownTable()));
}
