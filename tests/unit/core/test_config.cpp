#include <catch2/catch.hpp>

#include "core/config.h"
#include "core/parse.h"

using namespace cuptitrace;

TEST_CASE("parse: strict integers and sizes") {
  CHECK(parseUint("42") == 42u);
  CHECK_FALSE(parseUint("12abc"));
  CHECK_FALSE(parseUint(""));
  CHECK_FALSE(parseUint("-1"));
  CHECK_FALSE(parseUint("99999999999999999999999"));
  CHECK(parseSize("8M") == (8u << 20));
  CHECK(parseSize("64KiB") == (64u << 10));
  CHECK_FALSE(parseSize("8X"));
  CHECK_FALSE(parseSize("M"));
  CHECK(formatSize(8u << 20) == "8M");
  CHECK(parseBool("Yes") == true);
  CHECK(parseBool("off") == false);
  CHECK_FALSE(parseBool("maybe"));
}
