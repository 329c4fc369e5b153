// JSON text helpers: escaping (with invalid UTF-8 replaced), exact
// microsecond timestamps, numbers JSON can hold.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "core/json_text.h"

using namespace cuptitrace;

namespace {

std::string escaped(std::string_view s) {
  JsonText out;
  out.escaped(s);
  return std::string(out.view());
}

std::string quotedAndParsed(std::string_view s) {
  JsonText out;
  out.quoted(s);
  return nlohmann::json::parse(out.view()).get<std::string>();  // throws on invalid JSON or UTF-8
}

std::string micros(int64_t ns) {
  JsonText out;
  out.micros(ns);
  return std::string(out.view());
}

template <typename F>
std::string text(F&& write) {
  JsonText out;
  write(out);
  return std::string(out.view());
}

const std::string kReplacement = "\xEF\xBF\xBD";

}  // namespace

TEST_CASE("json text: quotes, backslashes and control characters are escaped") {
  CHECK(escaped("plain text, 123") == "plain text, 123");
  CHECK(escaped("a\"b\\c") == "a\\\"b\\\\c");
  CHECK(escaped("l1\nl2\tx\ry") == "l1\\nl2\\tx\\ry");
  CHECK(escaped(std::string("\x01\x1f\x7f", 3)) == "\\u0001\\u001f\\u007f");
  CHECK(escaped(std::string("nul\0byte", 8)) == "nul\\u0000byte");
  CHECK(escaped("\b\f") == "\\u0008\\u000c");
  const std::string hostile = "k<\"q\">\\\n\x02 end";
  CHECK(quotedAndParsed(hostile) == hostile);
}

TEST_CASE("json text: valid UTF-8 is copied unchanged") {
  const std::string text =
      "caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9D\x84\x9E \xEF\xBF\xBF \xF4\x8F\xBF\xBF";
  CHECK(escaped(text) == text);
  CHECK(quotedAndParsed(text) == text);
}

TEST_CASE("json text: each invalid UTF-8 sequence becomes one U+FFFD") {
  const std::string& r = kReplacement;
  CHECK(escaped("\xFF") == r);
  CHECK(escaped("a\xFE\xFF"
                "b") == "a" + r + r + "b");
  CHECK(escaped("\xC3") == r);         // truncated at the end
  CHECK(escaped("\xC3(") == r + "(");  // continuation missing
  CHECK(escaped("\xE2\x82") == r);     // 2 of 3 bytes: one maximal subpart
  CHECK(escaped("\xE2\x82x") == r + "x");
  CHECK(escaped("\xC0\xAF") == r + r);                  // overlong '/'
  CHECK(escaped("\xE0\x80\x80") == r + r + r);          // overlong 3-byte form
  CHECK(escaped("\xED\xA0\x80") == r + r + r);          // UTF-16 surrogate
  CHECK(escaped("\xF4\x90\x80\x80") == r + r + r + r);  // past U+10FFFF
  CHECK(escaped("\xF0\x9F\x98"
                "x") == r + "x");
  CHECK(escaped("\x80"
                "\xC3\xA9") == r + "\xC3\xA9");  // stray continuation, then valid
  CHECK(quotedAndParsed("bad\xFF\xC3 name\xE2\x82") == "bad" + r + r + " name" + r);
}

TEST_CASE("json text: microseconds with exactly three decimals") {
  CHECK(micros(0) == "0.000");
  CHECK(micros(1) == "0.001");
  CHECK(micros(999) == "0.999");
  CHECK(micros(1000) == "1.000");
  CHECK(micros(1234567) == "1234.567");
  CHECK(micros(-1) == "-0.001");
  CHECK(micros(-1500) == "-1.500");
  CHECK(micros(std::numeric_limits<int64_t>::max()) == "9223372036854775.807");
  CHECK(micros(std::numeric_limits<int64_t>::min()) == "-9223372036854775.808");
}

TEST_CASE("json text: numbers") {
  CHECK(text([](JsonText& t) { t.uint(std::numeric_limits<uint64_t>::max()); }) ==
        "18446744073709551615");
  CHECK(text([](JsonText& t) { t.sint(-42); }) == "-42");
  CHECK(text([](JsonText& t) { t.dbl(0.1); }) == "0.1");
  CHECK(text([](JsonText& t) { t.dbl(-2.2250738585072014e-308); }) == "-2.2250738585072014e-308");
  CHECK(text([](JsonText& t) { t.flt(0.1f); }) == "0.1");
  CHECK(text([](JsonText& t) { t.dblDigits(1048576.0 / 10000.0, 6); }) == "104.858");
  CHECK(text([](JsonText& t) { t.dbl(std::numeric_limits<double>::quiet_NaN()); }) == "\"nan\"");
  CHECK(text([](JsonText& t) { t.dblDigits(-std::numeric_limits<double>::infinity(), 6); }) ==
        "\"-inf\"");
}

TEST_CASE("json text: the buffer grows and keeps what it holds") {
  JsonText t;
  std::string expected;
  for (int i = 0; i < 100000; ++i) {
    t.uint(static_cast<uint64_t>(i));
    t.put(',');
    expected += std::to_string(i) + ",";
  }
  const std::string big(1 << 20, 'x');
  t.put(big);
  expected += big;
  CHECK(t.view() == expected);
  t.clear();
  CHECK(t.size() == 0);
  t.lit("ok");
  CHECK(t.view() == "ok");
}
