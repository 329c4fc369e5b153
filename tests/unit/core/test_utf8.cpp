// core/utf8.h: invalid UTF-8 replaced by U+FFFD one maximal subpart at a
// time, as both timeline formats write text.
#include <catch2/catch.hpp>

#include <string>

#include "core/utf8.h"

using namespace cuptitrace;

namespace {
const std::string kFffd = "\xEF\xBF\xBD";
}

TEST_CASE("utf8: valid text is kept as it is") {
  const std::string text = "r\xC3\xA9seau \xE2\x9C\x93 \xF0\x9F\x98\x80 ascii";
  CHECK(validUtf8(text) == text);
  CHECK(validUtf8("") == "");
}

TEST_CASE("utf8: each invalid sequence becomes one replacement character") {
  CHECK(validUtf8("a\xFF" "b") == "a" + kFffd + "b");                  // a byte that never starts a sequence
  CHECK(validUtf8("a\xE2\x9C" "b") == "a" + kFffd + "b");              // a cut sequence: one U+FFFD for its prefix
  CHECK(validUtf8("\xC0\xAF") == kFffd + kFffd);                     // overlong: C0 is never valid
  CHECK(validUtf8("\xED\xA0\x80") == kFffd + kFffd + kFffd);         // a UTF-16 surrogate
  CHECK(validUtf8("\xF4\x90\x80\x80") == kFffd + kFffd + kFffd + kFffd);  // past U+10FFFF
  CHECK(validUtf8("\xE2\x9C") == kFffd);                             // cut at the end of the text
}

TEST_CASE("utf8: scanUtf8 gives a sequence's length or its valid prefix's") {
  const unsigned char check[] = {0xE2, 0x9C, 0x93};
  bool valid = false;
  CHECK(scanUtf8(check, check + 3, &valid) == 3);
  CHECK(valid);
  CHECK(scanUtf8(check, check + 2, &valid) == 2);
  CHECK_FALSE(valid);
  const unsigned char ascii[] = {'x'};
  CHECK(scanUtf8(ascii, ascii + 1, &valid) == 1);
  CHECK(valid);
}
