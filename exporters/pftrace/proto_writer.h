// Protocol buffer wire format written straight into a byte buffer: the three
// wire types a trace needs (varint, fixed64, length-delimited) and nested
// messages. No libprotobuf, no schema: callers name field numbers themselves
// (see PERFETTO.md for the ones Perfetto reads).
//
// A nested message's length comes before its content, so it is either
// computed first (sized bottom-up: varintSize() and friends, which the hot
// paths of the Perfetto exporter use) or reserved and filled in afterwards:
// beginNested() leaves four bytes, endNested() writes the length there as a
// "redundant" varint (0x80|b0, 0x80|b1, 0x80|b2, b3), which every protobuf
// reader accepts, and endNestedCompact() writes the shortest varint instead
// and moves the content back over the bytes it did not need.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace cuptitrace {

enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

// Bytes of `v` as a varint (1 to 10).
constexpr size_t varintSize(uint64_t v) {
  // 7 bits a byte: the bits `v` needs (at least 1), rounded up to sevens.
  return static_cast<size_t>((64 - __builtin_clzll(v | 1) + 6) / 7);
}

// `v` as a varint at `p`; returns the byte after it. For hot paths that
// write many fields after one ProtoWriter::tail().
inline uint8_t* putVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}
// `v` little-endian at `p`, as the wire format has it whatever the host.
inline uint8_t* putFixed64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
  return p + 8;
}
// Bytes of a field's tag.
constexpr size_t tagSize(uint32_t field) { return varintSize(uint64_t{field} << 3); }
// Bytes of a whole varint field, and of a length-delimited one with `len` bytes of content.
constexpr size_t varintFieldSize(uint32_t field, uint64_t v) {
  return tagSize(field) + varintSize(v);
}
constexpr size_t bytesFieldSize(uint32_t field, size_t len) {
  return tagSize(field) + varintSize(len) + len;
}

// The length a nested message may have with a 4-byte redundant varint: 2^28 - 1.
inline constexpr size_t kMaxRedundantLength = (size_t{1} << 28) - 1;

class ProtoWriter {
 public:
  ProtoWriter() = default;
  ProtoWriter(const ProtoWriter&) = delete;
  ProtoWriter& operator=(const ProtoWriter&) = delete;

  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_.get()), size_}; }
  void clear() { size_ = 0; }
  // Trades bytes (and room) with `o`.
  void swap(ProtoWriter& o) noexcept {
    data_.swap(o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
  }
  // Makes room for `n` more bytes, so that the next `n` bytes need no check.
  void reserve(size_t n) {
    if (capacity_ - size_ < n) grow(n);
  }

  // ---- Raw bytes ------------------------------------------------------------
  void byte(uint8_t b) {
    reserve(1);
    data_[size_++] = b;
  }
  void bytes(const void* p, size_t n) {
    if (n == 0) return;  // memcpy from nullptr is undefined, even for 0 bytes
    reserve(n);
    std::memcpy(data_.get() + size_, p, n);
    size_ += n;
  }
  void bytes(std::string_view s) { bytes(s.data(), s.size()); }
  void varint(uint64_t v) { setTail(putVarint(tail(10), v)); }
  void fixed64(uint64_t v) { setTail(putFixed64(tail(8), v)); }

  // Direct access for hot paths: room for `n` more bytes, written through
  // the pointer returned, then setTail() with the pointer past the last one.
  uint8_t* tail(size_t n) {
    reserve(n);
    return data_.get() + size_;
  }
  void setTail(uint8_t* end) { size_ = static_cast<size_t>(end - data_.get()); }

  // ---- Fields ---------------------------------------------------------------
  void tag(uint32_t field, WireType type) {
    varint(uint64_t{field} << 3 | static_cast<uint8_t>(type));
  }
  // uint32/uint64/enum fields; also int32/int64 of non-negative values.
  void varintField(uint32_t field, uint64_t v) {
    tag(field, WireType::Varint);
    varint(v);
  }
  // int32/int64 fields: negative values are their 64-bit two's complement
  // (ten bytes), as protobuf encodes them (no zigzag: that is sint64).
  void int64Field(uint32_t field, int64_t v) { varintField(field, static_cast<uint64_t>(v)); }
  void boolField(uint32_t field, bool v) { varintField(field, v ? 1 : 0); }
  void fixed64Field(uint32_t field, uint64_t v) {
    tag(field, WireType::Fixed64);
    fixed64(v);
  }
  void doubleField(uint32_t field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    fixed64Field(field, bits);
  }
  // string and bytes fields, and an already encoded message.
  void bytesField(uint32_t field, std::string_view s) {
    tag(field, WireType::LengthDelimited);
    varint(s.size());
    bytes(s);
  }

  // ---- Nested messages with a length filled in afterwards --------------------
  // Where a nested message's reserved length sits.
  struct Nested {
    size_t lengthAt;
  };
  Nested beginNested(uint32_t field) {
    tag(field, WireType::LengthDelimited);
    reserve(4);
    const Nested n{size_};
    size_ += 4;
    return n;
  }
  // Fills the reserved bytes with the content's length as a 4-byte varint.
  // Content past kMaxRedundantLength does not fit in four bytes: it is moved
  // forward to make room for a longer varint.
  void endNested(Nested n) {
    const size_t length = size_ - n.lengthAt - 4;
    if (length > kMaxRedundantLength) return resize(n, length, varintSize(length));
    writeRedundantVarint(data_.get() + n.lengthAt, static_cast<uint32_t>(length));
  }
  // Writes the content's length as the shortest varint, moving the content
  // back over the reserved bytes it did not need.
  void endNestedCompact(Nested n) {
    const size_t length = size_ - n.lengthAt - 4;
    resize(n, length, varintSize(length));
  }

  // `v` (< 2^28) as four varint bytes at `at`, whatever its value.
  static void writeRedundantVarint(uint8_t* at, uint32_t v) {
    at[0] = static_cast<uint8_t>(0x80 | (v & 0x7F));
    at[1] = static_cast<uint8_t>(0x80 | ((v >> 7) & 0x7F));
    at[2] = static_cast<uint8_t>(0x80 | ((v >> 14) & 0x7F));
    at[3] = static_cast<uint8_t>((v >> 21) & 0x7F);
  }

 private:
  // Replaces the 4 reserved bytes of `n` by a `width`-byte varint of `length`.
  void resize(Nested n, size_t length, size_t width);
  void grow(size_t n);

  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace cuptitrace
