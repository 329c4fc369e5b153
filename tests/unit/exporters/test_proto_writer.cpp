// The protobuf encoder under the Perfetto exporter: exact bytes for the
// wire format's edge cases, checked against hand-written hex and read back
// with the test-only reader.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "exporters/pftrace/proto_writer.h"
#include "proto_reader.h"

using namespace cuptitrace;
using cuptitrace::testing::proto::fromHex;
using cuptitrace::testing::proto::Message;
using cuptitrace::testing::proto::toHex;

namespace {

std::string hexOf(const ProtoWriter& w) { return toHex(w.view()); }
std::string varintHex(uint64_t v) {
  ProtoWriter w;
  w.varint(v);
  CHECK(w.size() == varintSize(v));
  return hexOf(w);
}

}  // namespace

TEST_CASE("proto writer: varints at their boundaries", "[pftrace]") {
  CHECK(varintHex(0) == "00");
  CHECK(varintHex(1) == "01");
  CHECK(varintHex(127) == "7f");
  CHECK(varintHex(128) == "80 01");
  CHECK(varintHex(300) == "ac 02");
  CHECK(varintHex(16383) == "ff 7f");
  CHECK(varintHex(16384) == "80 80 01");
  CHECK(varintHex(uint64_t{1} << 32) == "80 80 80 80 10");
  CHECK(varintHex((uint64_t{1} << 32) - 1) == "ff ff ff ff 0f");
  CHECK(varintHex(UINT64_MAX) == "ff ff ff ff ff ff ff ff ff 01");
  CHECK(varintSize(0) == 1);
  CHECK(varintSize(127) == 1);
  CHECK(varintSize(128) == 2);
  CHECK(varintSize(uint64_t{1} << 32) == 5);
  CHECK(varintSize(UINT64_MAX) == 10);
}

TEST_CASE("proto writer: fields of each wire type", "[pftrace]") {
  ProtoWriter w;
  w.varintField(1, 150);  // the protobuf documentation's example: 08 96 01
  CHECK(hexOf(w) == "08 96 01");
  w.clear();
  w.varintField(47, 1);  // a two-byte tag: (47 << 3) | 0 = 376
  CHECK(hexOf(w) == "f8 02 01");
  w.clear();
  w.fixed64Field(47, 0x0102030405060708ull);  // little-endian after tag (47 << 3) | 1 = 377
  CHECK(hexOf(w) == "f9 02 08 07 06 05 04 03 02 01");
  w.clear();
  w.doubleField(5, 1.0);  // 0x3FF0000000000000
  CHECK(hexOf(w) == "29 00 00 00 00 00 00 f0 3f");
  w.clear();
  w.bytesField(2, "testing");
  CHECK(hexOf(w) == "12 07 74 65 73 74 69 6e 67");
  w.clear();
  w.bytesField(2, "");
  CHECK(hexOf(w) == "12 00");
  w.clear();
  w.int64Field(4, -1);  // int64: two's complement, ten bytes
  CHECK(hexOf(w) == "20 ff ff ff ff ff ff ff ff ff 01");
  w.clear();
  w.boolField(3, true);
  w.boolField(3, false);
  CHECK(hexOf(w) == "18 01 18 00");
  CHECK(tagSize(15) == 1);
  CHECK(tagSize(16) == 2);
  CHECK(varintFieldSize(1, 150) == 3);
  CHECK(bytesFieldSize(2, 7) == 9);
}

TEST_CASE("proto writer: nested messages with a redundant length patched afterwards", "[pftrace]") {
  ProtoWriter w;
  auto outer = w.beginNested(1);
  w.varintField(1, 1);
  auto inner = w.beginNested(2);
  w.bytesField(1, "ab");
  w.endNested(inner);
  w.endNested(outer);
  // 0a [4-byte length 11] 08 01 12 [4-byte length 4] 0a 02 61 62
  CHECK(hexOf(w) == "0a 8b 80 80 00 08 01 12 84 80 80 00 0a 02 61 62");
  // Protobuf readers take the redundant lengths as the plain ones.
  const std::string bytes(w.view());
  const Message m(bytes);
  REQUIRE(m.fields().size() == 1);
  const Message o = m.msg(1);
  CHECK(o.u(1) == 1);
  CHECK(o.msg(2).str(1) == "ab");
  CHECK(m.fields()[0].varintBytes == 4);

  uint8_t four[4];
  ProtoWriter::writeRedundantVarint(four, 0);
  CHECK(toHex(std::string_view(reinterpret_cast<char*>(four), 4)) == "80 80 80 00");
  ProtoWriter::writeRedundantVarint(four, kMaxRedundantLength);
  CHECK(toHex(std::string_view(reinterpret_cast<char*>(four), 4)) == "ff ff ff 7f");
  ProtoWriter::writeRedundantVarint(four, 300);
  CHECK(toHex(std::string_view(reinterpret_cast<char*>(four), 4)) == "ac 82 80 00");
}

TEST_CASE("proto writer: compact nested messages get minimal lengths", "[pftrace]") {
  ProtoWriter w;
  auto outer = w.beginNested(1);
  w.varintField(1, 1);
  auto inner = w.beginNested(2);
  w.bytesField(1, "ab");
  w.endNestedCompact(inner);
  w.endNestedCompact(outer);
  CHECK(hexOf(w) == "0a 08 08 01 12 04 0a 02 61 62");

  // A length of two varint bytes: the content moves back by two.
  w.clear();
  auto big = w.beginNested(3);
  const std::string payload(200, 'x');
  w.bytesField(1, payload);  // 0a c8 01 + 200 bytes = 203
  w.endNestedCompact(big);
  CHECK(w.size() == 1 + 2 + 203);
  CHECK(toHex(w.view().substr(0, 6)) == "1a cb 01 0a c8 01");
  const std::string bytes(w.view());
  CHECK(Message(bytes).msg(3).str(1) == payload);

  // An empty message.
  w.clear();
  w.endNestedCompact(w.beginNested(4));
  w.endNested(w.beginNested(5));
  CHECK(hexOf(w) == "22 00 2a 80 80 80 00");
}

TEST_CASE("proto writer: the buffer grows without losing what it holds", "[pftrace]") {
  ProtoWriter w;
  auto nested = w.beginNested(1);
  for (uint64_t i = 0; i < 100000; ++i) w.varintField(2, i);
  w.endNestedCompact(nested);
  const std::string bytes(w.view());
  const Message m(bytes);
  const auto values = m.msg(1).all(2, cuptitrace::testing::proto::kVarint);
  REQUIRE(values.size() == 100000);
  for (uint64_t i = 0; i < values.size(); ++i) {
    if (values[i] != i) FAIL("value " << i << " read back as " << values[i]);
  }
}

TEST_CASE("proto reader: rejects truncated and malformed input", "[pftrace]") {
  using cuptitrace::testing::proto::parseFields;
  CHECK_THROWS(parseFields(fromHex("08")));        // varint missing
  CHECK_THROWS(parseFields(fromHex("08 80")));     // varint cut short
  CHECK_THROWS(parseFields(fromHex("0a 05 01")));  // length past the end
  CHECK_THROWS(parseFields(fromHex("09 01 02")));  // fixed64 cut short
  CHECK_THROWS(parseFields(fromHex("0b")));        // groups are not used
  CHECK_THROWS(parseFields(fromHex("00 01")));     // field number 0
  CHECK_NOTHROW(parseFields(fromHex("08 96 01 12 00")));
}
