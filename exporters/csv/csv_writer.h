// The CSV tables' writer: one row at a time into a buffer handed to the
// stream in blocks, every field quoted as RFC 4180 says when it must be
// (csv.cpp describes the format), every text field valid UTF-8.
#pragma once

#include <cassert>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/records.h"
#include "core/utf8.h"

namespace cuptitrace {

// Bytes gathered before one write to the stream.
inline constexpr size_t kCsvFlushBytes = size_t{1} << 16;

inline bool csvNeedsQuoting(std::string_view s) {
  if (s.empty()) return false;
  if (s.front() == ' ' || s.front() == '\t' || s.back() == ' ' || s.back() == '\t') return true;
  return s.find_first_of(",\"\r\n") != std::string_view::npos;
}

// Formats rows into a buffer and hands it to the stream in blocks, or
// appends them all to a string (a piece of a table formatted by one of
// several threads). Every field ends with a comma; endRow() turns the last
// one into the line end.
class CsvWriter {
 public:
  CsvWriter(std::ostream& out, size_t columns) : out_(&out), columns_(columns) {
    buffer_.reserve(kCsvFlushBytes + 4096);
  }
  // The rows are appended to `into`, there once the writer is gone.
  CsvWriter(std::string& into, size_t columns) : into_(&into), columns_(columns) { buffer_.swap(into); }
  ~CsvWriter() {
    if (into_ != nullptr) into_->swap(buffer_);
    else flush();
  }

  template <typename Int>
  void integer(Int v) {
    char tmp[24];
    const auto result = std::to_chars(tmp, tmp + sizeof tmp, v);
    buffer_.append(tmp, static_cast<size_t>(result.ptr - tmp));
    endField();
  }
  void number(double v) {
    // Shortest form that reads back to the same double.
    char tmp[32];
    const auto result = std::to_chars(tmp, tmp + sizeof tmp, v);
    buffer_.append(tmp, static_cast<size_t>(result.ptr - tmp));
    endField();
  }
  void number(float v) {
    char tmp[32];
    const auto result = std::to_chars(tmp, tmp + sizeof tmp, v);
    buffer_.append(tmp, static_cast<size_t>(result.ptr - tmp));
    endField();
  }
  // Text as recorded may hold any bytes (a range message, a kernel or thread
  // name); readers decode CSV as UTF-8 (Python's csv module, pandas) and fail
  // on the first invalid byte, so each invalid sequence becomes U+FFFD, as
  // in the JSON. The native trace keeps the bytes.
  void text(std::string_view s) {
    if (!isValidUtf8(s)) {
      const std::string valid = validUtf8(s);
      return text(valid);
    }
    if (!csvNeedsQuoting(s)) {
      buffer_.append(s);
    } else {
      buffer_ += '"';
      for (char c : s) {
        if (c == '"') buffer_ += '"';
        buffer_ += c;
      }
      buffer_ += '"';
    }
    endField();
  }
  // Text of our own that needs no quotes.
  void plain(std::string_view s) {
    buffer_.append(s);
    endField();
  }
  void empty() { endField(); }
  // Empty when `v` is CUPTI's "not applicable" id.
  void optionalId(uint32_t v) {
    if (v == kNotApplicable)
      empty();
    else
      integer(v);
  }
  // start_ns, end_ns, duration_ns (empty when the end is missing or before the start).
  void times(uint64_t start, uint64_t end) {
    integer(start);
    integer(end);
    if (end != 0 && end >= start)
      integer(end - start);
    else
      empty();
  }

  // The fields written so far in the row: the index of the next column.
  size_t fields() const { return fields_; }

  void endRow() {
    assert(fields_ == columns_ && "a CSV row must have one field per column");
    buffer_.back() = '\n';
    fields_ = 0;
    if (buffer_.size() >= kCsvFlushBytes) flush();
  }

  void header(const std::vector<std::string>& columns) {
    for (const auto& c : columns) text(c);
    endRow();
  }

 private:
  void endField() {
    buffer_ += ',';
    ++fields_;
  }
  void flush() {
    if (out_ == nullptr) return;
    out_->write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

  std::ostream* out_ = nullptr;   // or:
  std::string* into_ = nullptr;   // where the rows go when the writer is gone
  std::string buffer_;
  size_t columns_;
  size_t fields_ = 0;
};

// Addresses as C prints pointers ("0x7f3a00000000"); 0 (none) as an empty field.
inline void writeAddress(CsvWriter& w, uint64_t address) {
  if (address == 0) return w.empty();
  static constexpr char kHex[] = "0123456789abcdef";
  char s[18] = {'0', 'x'};
  int digits = 0;
  for (uint64_t v = address; v != 0; v >>= 4) ++digits;
  for (int i = 0; i < digits; ++i) s[2 + i] = kHex[(address >> (4 * (digits - 1 - i))) & 0xf];
  w.text(std::string_view(s, static_cast<size_t>(2 + digits)));
}

}  // namespace cuptitrace
