// The CSV tables' writer: one row at a time into a buffer handed to the
// stream in blocks, every field quoted as RFC 4180 says when it must be
// (csv.cpp describes the format), every text field valid UTF-8.
#pragma once

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/records.h"
#include "core/utf8.h"

namespace cuptitrace {

// Bytes gathered before one write to the stream.
inline constexpr size_t kCsvFlushBytes = size_t{1} << 16;

// What a text field needs, by byte: 1 for a separator, a quote or a line
// end (quoted), 2 for a byte of a multi-byte sequence (checked as UTF-8).
struct CsvByteClasses {
  uint8_t of[256] = {};
  constexpr CsvByteClasses() {
    of[static_cast<unsigned char>(',')] = of[static_cast<unsigned char>('"')] = 1;
    of[static_cast<unsigned char>('\r')] = of[static_cast<unsigned char>('\n')] = 1;
    for (int c = 0x80; c < 0x100; ++c) of[c] = 2;
  }
};
inline constexpr CsvByteClasses kCsvByteClasses{};

// Text being formatted: a piece of a table, or the rows not yet handed to
// the stream. Its memory is kept when cleared, for the next piece.
class CsvText {
 public:
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  void clear() { size_ = 0; }
  // Room for `bytes` in all, the text kept. Memory not written to costs
  // nothing yet (the system gives its pages on first use): a generous
  // reserve spares the copies and fresh pages of growing step by step.
  void reserve(size_t bytes) {
    if (bytes <= capacity_) return;
    std::unique_ptr<char[]> more(new char[bytes]);
    if (size_ != 0) std::memcpy(more.get(), data_.get(), size_);
    data_ = std::move(more);
    capacity_ = bytes;
  }

 private:
  friend class CsvWriter;
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Formats rows into a buffer and hands it to the stream in blocks, or
// appends them all to a CsvText (a piece of a table formatted by one of
// several threads). Every field ends with a comma; endRow() turns the last
// one into the line end.
class CsvWriter {
 public:
  CsvWriter(std::ostream& out, size_t columns) : out_(&out), text_(&own_), columns_(columns) {
    load();
    room(kCsvFlushBytes + 4096);
  }
  // The rows are appended to `into`, there once the writer is gone.
  CsvWriter(CsvText& into, size_t columns) : text_(&into), columns_(columns) { load(); }
  ~CsvWriter() {
    store();
    if (out_ != nullptr) flush();
  }
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  template <typename Int>
  void integer(Int v) {
    room(24);
    p_ = std::to_chars(p_, p_ + 24, v).ptr;
    endField();
  }
  void number(double v) {
    // Shortest form that reads back to the same double.
    room(40);
    p_ = std::to_chars(p_, p_ + 40, v).ptr;
    endField();
  }
  void number(float v) {
    room(40);
    p_ = std::to_chars(p_, p_ + 40, v).ptr;
    endField();
  }
  // Text as recorded may hold any bytes (a range message, a kernel or thread
  // name); readers decode CSV as UTF-8 (Python's csv module, pandas) and fail
  // on the first invalid byte, so each invalid sequence becomes U+FFFD, as
  // in the JSON. The native trace keeps the bytes. Text of plain ASCII that
  // needs no quotes (most names) is copied as it is, checked in one pass.
  void text(std::string_view s) {
    unsigned needs = 0;
    for (const char c : s) needs |= kCsvByteClasses.of[static_cast<unsigned char>(c)];
    if ((needs & 2) != 0 && !isValidUtf8(s)) return text(validUtf8(s));
    if (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.back() == ' ' || s.back() == '\t')) needs |= 1;
    if ((needs & 1) == 0) return plain(s);
    room(2 * s.size() + 2);
    *p_++ = '"';
    for (const char c : s) {
      if (c == '"') *p_++ = '"';
      *p_++ = c;
    }
    *p_++ = '"';
    endField();
  }
  // Text of our own that needs no quotes.
  void plain(std::string_view s) {
    room(s.size() + 1);
    if (!s.empty()) std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
    endField();
  }
  // `count` fields made before (csvEscaped), each with its comma.
  void fields(std::string_view made, size_t count) {
    room(made.size());
    if (!made.empty()) std::memcpy(p_, made.data(), made.size());
    p_ += made.size();
    fields_ += count;
  }
  void empty() {
    room(1);
    endField();
  }
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
    p_[-1] = '\n';
    fields_ = 0;
    if (out_ != nullptr && static_cast<size_t>(p_ - begin_) >= kCsvFlushBytes) flush();
  }

  void header(const std::vector<std::string>& columns) {
    for (const auto& c : columns) text(c);
    endRow();
  }

 private:
  // The buffer's pointers, taken from and given back to the text.
  void load() {
    begin_ = text_->data_.get();
    p_ = begin_ + text_->size_;
    end_ = begin_ + text_->capacity_;
  }
  void store() { text_->size_ = static_cast<size_t>(p_ - begin_); }
  // Room for `n` more bytes and a comma.
  void room(size_t n) {
    if (static_cast<size_t>(end_ - p_) <= n) grow(n + 1);
  }
  void grow(size_t n) {
    store();
    text_->reserve(std::max(2 * text_->capacity_, text_->size_ + std::max<size_t>(n, 4096)));
    load();
  }
  void endField() {
    *p_++ = ',';
    ++fields_;
  }
  void flush() {
    if (out_ == nullptr) return;
    out_->write(begin_, p_ - begin_);
    p_ = begin_;
  }

  std::ostream* out_ = nullptr;  // or the rows stay in *text_
  CsvText own_;                  // the stream's buffer
  CsvText* text_;
  char* begin_ = nullptr;
  char* p_ = nullptr;
  char* end_ = nullptr;
  size_t columns_;
  size_t fields_ = 0;
};

// The text as CsvWriter::text writes it as a field, without the comma after it.
inline std::string csvEscaped(std::string_view s) {
  CsvText made;
  {
    CsvWriter w(made, 1);
    w.text(s);
  }
  return std::string(made.data(), made.size() - 1);
}

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
