// Small helpers to write and read the native trace format and the spill
// journal's blocks (which share its encoding): fixed-width little-endian
// integers and length-prefixed strings, with bounds checks on every read so
// that a corrupt or truncated file is an error, never a crash.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <istream>
#include <string>
#include <string_view>

namespace cuptitrace::binary_io {

// Records are written as their raw bytes, so the file is little-endian only
// because every host CUDA runs on (x86_64, aarch64, ppc64le) is. A big-endian
// build would need per-field swapping; fail the build rather than write files
// that other hosts misread.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the native trace format is little-endian");

// Appends values to a byte buffer.
class ByteWriter {
 public:
  explicit ByteWriter(std::string& buffer) : buffer_(buffer) {}

  void u8(uint8_t v) { buffer_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) { raw(&v, sizeof v); }
  void i32(int32_t v) { raw(&v, sizeof v); }
  void u64(uint64_t v) { raw(&v, sizeof v); }
  // A uint32 byte length, then the bytes (no terminator).
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    buffer_.append(s.data(), s.size());
  }
  void raw(const void* data, size_t n) { buffer_.append(static_cast<const char*>(data), n); }

 private:
  std::string& buffer_;
};

// Reads values from a byte range. Each read returns false, and leaves the
// reader failed, when fewer bytes remain than the value needs; counts and
// lengths taken from the data are therefore checked against what is really there.
class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}

  bool u8(uint8_t& v) { return raw(&v, sizeof v); }
  bool u32(uint32_t& v) { return raw(&v, sizeof v); }
  bool i32(int32_t& v) { return raw(&v, sizeof v); }
  bool u64(uint64_t& v) { return raw(&v, sizeof v); }
  bool str(std::string& s) {
    std::string_view view;
    if (!strView(view)) return false;
    s.assign(view.data(), view.size());
    return true;
  }
  // Like str(), without copying: the view points into the reader's data.
  bool strView(std::string_view& s) {
    uint32_t n = 0;
    if (!u32(n)) return false;
    if (n > remaining()) return fail();
    s = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool raw(void* out, size_t n) {
    if (n > remaining()) return fail();
    std::memcpy(out, data_.data() + pos_, n);
    pos_ += n;
    return true;
  }

  size_t remaining() const { return failed_ ? 0 : data_.size() - pos_; }
  bool failed() const { return failed_; }

 private:
  bool fail() {
    failed_ = true;
    return false;
  }

  std::string_view data_;
  size_t pos_ = 0;
  bool failed_ = false;
};

// Largest piece read from a stream at once. A length field from a corrupt
// file can claim exabytes; reading in pieces means memory only grows with
// bytes that actually arrive, and the end of the stream stops it.
inline constexpr size_t kReadPiece = size_t{1} << 20;

// Reads exactly `n` bytes into `out`; false when the stream ends first.
inline bool readExact(std::istream& in, void* out, size_t n) {
  in.read(static_cast<char*>(out), static_cast<std::streamsize>(n));
  return static_cast<size_t>(in.gcount()) == n;
}

// Reads exactly `n` bytes, appended to `out` piece by piece; false when the
// stream ends first (`out` then holds what was read).
inline bool readBounded(std::istream& in, uint64_t n, std::string& out) {
  while (n > 0) {
    const size_t piece = static_cast<size_t>(std::min<uint64_t>(n, kReadPiece));
    const size_t old = out.size();
    out.resize(old + piece);
    in.read(out.data() + old, static_cast<std::streamsize>(piece));
    const auto got = static_cast<size_t>(in.gcount());
    if (got != piece) {
      out.resize(old + got);
      return false;
    }
    n -= piece;
  }
  return true;
}

// Skips exactly `n` bytes; false when the stream ends first.
inline bool skipBytes(std::istream& in, uint64_t n) {
  char scratch[4096];
  while (n > 0) {
    const size_t piece = static_cast<size_t>(std::min<uint64_t>(n, sizeof scratch));
    if (!readExact(in, scratch, piece)) return false;
    n -= piece;
  }
  return true;
}

}  // namespace cuptitrace::binary_io
