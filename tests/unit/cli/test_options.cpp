#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "cli/options.h"

using namespace cuptitrace;

namespace {
std::string configurationPage() {
  std::ifstream in(std::string(CUPTITRACE_SOURCE_DIR) + "/docs/configuration.md");
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

TEST_CASE("docs/configuration.md: the variable reference is the one the configuration table makes") {
  // Regenerate with: scripts/gen-config-doc.sh
  const std::string page = configurationPage();
  CHECK_THAT(page, Catch::Contains(cli::envMarkdownTable()));
  // Every variable, each once in the table: a row left behind by hand fails too.
  for (const auto& var : configTable()) {
    INFO(var.name);
    const std::string row = std::string("| `") + var.name + "` |";
    const size_t first = page.find(row);
    CHECK(first != std::string::npos);
    CHECK(page.find(row, first + 1) == std::string::npos);
  }
  // No row of a variable the table no longer has.
  size_t rows = 0;
  for (size_t at = page.find("\n| `CUPTITRACE_"); at != std::string::npos; at = page.find("\n| `CUPTITRACE_", at + 1))
    ++rows;
  CHECK(rows == configTable().size());
}
