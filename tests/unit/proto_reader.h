// A protobuf wire-format reader for tests: no schema, no libprotobuf. It
// splits a message into its fields (number, wire type, value or bytes), so
// tests can check what an exporter wrote field by field. Written apart from
// exporters/proto_writer so that a mistake in one does not hide in the other.
// Malformed input throws std::runtime_error, failing the test that reads it.
// pftrace_decoder.h reads a whole .pftrace on top of it.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cuptitrace::testing::proto {

enum Wire : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kBytes = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5
};

struct Field {
  uint32_t number = 0;
  uint8_t wire = 0;
  uint64_t value = 0;      // varint, fixed64 and fixed32 fields
  std::string_view bytes;  // length-delimited fields: the content
  size_t varintBytes = 0;  // bytes the varint value (or a length) took, to check minimal encoding
};

// Reads a varint at `p`, advancing it; throws past `end` or past 10 bytes.
inline uint64_t readVarint(const uint8_t*& p, const uint8_t* end, size_t* width = nullptr) {
  uint64_t v = 0;
  for (int i = 0; i < 10; ++i) {
    if (p == end) throw std::runtime_error("varint runs past the end");
    const uint8_t b = *p++;
    if (i == 9 && b > 1) throw std::runtime_error("varint overflows 64 bits");
    v |= uint64_t{b & 0x7Fu} << (7 * i);
    if ((b & 0x80) == 0) {
      if (width) *width = static_cast<size_t>(i + 1);
      return v;
    }
  }
  throw std::runtime_error("varint longer than 10 bytes");
}

// The fields of one message, in order.
inline std::vector<Field> parseFields(std::string_view message) {
  std::vector<Field> fields;
  const auto* p = reinterpret_cast<const uint8_t*>(message.data());
  const auto* end = p + message.size();
  while (p != end) {
    const uint64_t key = readVarint(p, end);
    Field f;
    f.number = static_cast<uint32_t>(key >> 3);
    f.wire = static_cast<uint8_t>(key & 7);
    if (f.number == 0 || key >> 3 > 0x1FFFFFFF) throw std::runtime_error("invalid field number");
    switch (f.wire) {
      case kVarint:
        f.value = readVarint(p, end, &f.varintBytes);
        break;
      case kFixed64:
        if (end - p < 8) throw std::runtime_error("fixed64 runs past the end");
        for (int i = 0; i < 8; ++i) f.value |= uint64_t{p[i]} << (8 * i);
        p += 8;
        break;
      case kFixed32:
        if (end - p < 4) throw std::runtime_error("fixed32 runs past the end");
        for (int i = 0; i < 4; ++i) f.value |= uint64_t{p[i]} << (8 * i);
        p += 4;
        break;
      case kBytes: {
        const uint64_t length = readVarint(p, end, &f.varintBytes);
        if (length > static_cast<uint64_t>(end - p))
          throw std::runtime_error("length-delimited field runs past the end");
        f.bytes = std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(length));
        p += length;
        break;
      }
      default:
        throw std::runtime_error("unsupported wire type " + std::to_string(f.wire));
    }
    fields.push_back(f);
  }
  return fields;
}

// A parsed message. The bytes it was parsed from must outlive it.
class Message {
 public:
  Message() = default;
  explicit Message(std::string_view bytes) : bytes_(bytes), fields_(parseFields(bytes)) {}

  std::string_view bytes() const { return bytes_; }
  const std::vector<Field>& fields() const { return fields_; }

  size_t count(uint32_t number) const {
    size_t n = 0;
    for (const Field& f : fields_) n += f.number == number ? 1 : 0;
    return n;
  }
  bool has(uint32_t number) const { return count(number) != 0; }

  // The last occurrence of a field (protobuf: the last one wins); throws
  // when it is missing or of another wire type.
  const Field& field(uint32_t number, uint8_t wire) const {
    const Field* found = nullptr;
    for (const Field& f : fields_)
      if (f.number == number) found = &f;
    if (found == nullptr) throw std::runtime_error("missing field " + std::to_string(number));
    if (found->wire != wire)
      throw std::runtime_error("field " + std::to_string(number) + " has wire type " +
                               std::to_string(found->wire));
    return *found;
  }
  uint64_t u(uint32_t number) const { return field(number, kVarint).value; }
  int64_t i(uint32_t number) const { return static_cast<int64_t>(u(number)); }
  uint64_t fixed64(uint32_t number) const { return field(number, kFixed64).value; }
  double dbl(uint32_t number) const {
    const uint64_t bits = fixed64(number);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  std::string str(uint32_t number) const { return std::string(field(number, kBytes).bytes); }
  Message msg(uint32_t number) const { return Message(field(number, kBytes).bytes); }
  uint64_t u(uint32_t number, uint64_t missing) const { return has(number) ? u(number) : missing; }

  // Every occurrence of a repeated field.
  std::vector<Message> msgs(uint32_t number) const {
    std::vector<Message> out;
    for (const Field& f : fields_) {
      if (f.number != number) continue;
      if (f.wire != kBytes)
        throw std::runtime_error("field " + std::to_string(number) + " is not a message");
      out.emplace_back(f.bytes);
    }
    return out;
  }
  // Every value of a repeated scalar field, unpacked or packed (varints and fixed64).
  std::vector<uint64_t> all(uint32_t number, uint8_t wire) const {
    std::vector<uint64_t> out;
    for (const Field& f : fields_) {
      if (f.number != number) continue;
      if (f.wire == wire) {
        out.push_back(f.value);
      } else if (f.wire == kBytes) {
        const auto* p = reinterpret_cast<const uint8_t*>(f.bytes.data());
        const auto* end = p + f.bytes.size();
        while (p != end) {
          if (wire == kVarint) {
            out.push_back(readVarint(p, end));
          } else {
            if (end - p < 8) throw std::runtime_error("packed fixed64 runs past the end");
            uint64_t v = 0;
            for (int i = 0; i < 8; ++i) v |= uint64_t{p[i]} << (8 * i);
            out.push_back(v);
            p += 8;
          }
        }
      } else {
        throw std::runtime_error("field " + std::to_string(number) + " has the wrong wire type");
      }
    }
    return out;
  }

 private:
  std::string_view bytes_;
  std::vector<Field> fields_;
};

// The packets of a trace: a Trace message whose only field is `packet = 1`.
inline std::vector<Message> tracePackets(std::string_view trace) {
  std::vector<Message> packets;
  for (const Field& f : parseFields(trace)) {
    if (f.number != 1 || f.wire != kBytes)
      throw std::runtime_error("a Trace holds only packets (field 1, length-delimited)");
    packets.emplace_back(f.bytes);
  }
  return packets;
}

// Bytes from text like "0a 05 08 01" (spaces and newlines ignored).
inline std::string fromHex(std::string_view hex) {
  std::string out;
  int high = -1;
  for (const char c : hex) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else if (c == ' ' || c == '\n') {
      continue;
    } else {
      throw std::runtime_error(std::string("not a hex digit: ") + c);
    }
    if (high < 0) {
      high = v;
    } else {
      out += static_cast<char>(high << 4 | v);
      high = -1;
    }
  }
  if (high >= 0) throw std::runtime_error("odd number of hex digits");
  return out;
}

// "0a 05 08 01": bytes as spaced hex, to show a difference readably.
inline std::string toHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (!out.empty()) out += ' ';
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

}  // namespace cuptitrace::testing::proto
