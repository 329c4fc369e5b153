// JSON text written straight into a byte buffer: escaped strings, integers,
// and microsecond timestamps that keep every nanosecond. No DOM, no streams:
// the Chrome JSON exporter formats millions of events with this, so the
// small appends are inline (a std::string append is an out-of-line call each).
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

// The appends below are a few instructions each once inlined (a literal's
// copy becomes moves of known size); forced, because in large writer
// functions the compiler otherwise gives up inlining them and every one
// becomes a call and a variable-size memcpy.
#define JSON_TEXT_INLINE inline __attribute__((always_inline))

namespace cuptitrace {

class JsonText {
 public:
  JsonText() = default;
  JsonText(const JsonText&) = delete;
  JsonText& operator=(const JsonText&) = delete;

  std::string_view view() const { return {data_.get(), size_}; }
  size_t size() const { return size_; }
  void clear() { size_ = 0; }
  // Makes room for `n` more bytes.
  JSON_TEXT_INLINE void reserve(size_t n) {
    if (capacity_ - size_ < n) grow(n);
  }

  JSON_TEXT_INLINE void put(char c) {
    reserve(1);
    data_[size_++] = c;
  }
  JSON_TEXT_INLINE void put(std::string_view s) {
    if (s.empty()) return;  // memcpy from or to nullptr is undefined, even for 0 bytes
    reserve(s.size());
    std::memcpy(data_.get() + size_, s.data(), s.size());
    size_ += s.size();
  }
  // A string literal: its length is known at compile time, so is the copy.
  template <size_t N>
  JSON_TEXT_INLINE void lit(const char (&s)[N]) {
    put(std::string_view(s, N - 1));
  }

  JSON_TEXT_INLINE void uint(uint64_t v) { number(v); }
  JSON_TEXT_INLINE void sint(int64_t v) { number(v); }

  // `ns` nanoseconds written as microseconds with exactly three decimals
  // ("1234.567", "-0.001"), by integer arithmetic so nothing is rounded.
  void micros(int64_t ns) {
    reserve(1 + 20 + 4);
    // Magnitude as unsigned so that INT64_MIN does not overflow on negation.
    uint64_t magnitude = static_cast<uint64_t>(ns);
    if (ns < 0) {
      data_[size_++] = '-';
      magnitude = ~magnitude + 1;
    }
    char* p = std::to_chars(data_.get() + size_, data_.get() + capacity_, magnitude / 1000).ptr;
    const auto frac = static_cast<unsigned>(magnitude % 1000);
    p[0] = '.';
    p[1] = static_cast<char>('0' + frac / 100);
    p[2] = static_cast<char>('0' + frac / 10 % 10);
    p[3] = static_cast<char>('0' + frac % 10);
    size_ = static_cast<size_t>(p + 4 - data_.get());
  }

  // `s` escaped for the inside of a JSON string (no quotes added). Quote
  // and backslash are escaped, control characters (and DEL, which Perfetto's
  // tokenizer rejects raw) become \n, \t, \r or \u00XX, valid UTF-8 is copied
  // as is, and each invalid UTF-8 sequence becomes U+FFFD, so the output is
  // valid JSON whatever bytes a kernel or range name holds.
  void escaped(std::string_view s);
  // `s` escaped and in quotes.
  JSON_TEXT_INLINE void quoted(std::string_view s) {
    put('"');
    escaped(s);
    put('"');
  }

  // Shortest text that reads back as `v`. JSON has no NaN or infinity, so
  // those are written as strings ("nan", "inf", "-inf").
  void dbl(double v);
  void flt(float v);  // shortest text of the float itself
  // `v` with `digits` significant digits ("104.858", "1.5e+09").
  void dblDigits(double v, int digits);

 private:
  template <typename T>
  void number(T v) {
    reserve(32);  // the longest integer or shortest-form double is 24
    size_ = static_cast<size_t>(std::to_chars(data_.get() + size_, data_.get() + capacity_, v).ptr -
                                data_.get());
  }
  bool nonFinite(double v);
  void grow(size_t n);

  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace cuptitrace

#undef JSON_TEXT_INLINE
