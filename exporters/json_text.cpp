#include "exporters/json_text.h"

#include <algorithm>
#include <cmath>

namespace cuptitrace {
namespace {

// The UTF-8 sequence at `p`: its length when it is valid (*valid true), or
// else the length of its longest valid prefix, at least 1 (*valid false).
// Replacing that prefix with one U+FFFD and going on from the byte after it
// is the "maximal subpart" practice of the Unicode standard (section 3.9), so
// a stray byte costs one replacement character and swallows nothing valid.
size_t scanUtf8(const unsigned char* p, const unsigned char* end, bool* valid) {
  const unsigned char lead = p[0];
  size_t continuation;
  // Bounds of the second byte; they exclude overlong forms, UTF-16
  // surrogates (ED A0..BF) and code points past U+10FFFF (F4 90..).
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuation = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    continuation = 2;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    continuation = 3;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    *valid = false;
    return 1;
  }
  size_t i = 1;
  for (; i <= continuation && p + i < end; ++i) {
    const unsigned char b = p[i];
    const bool ok = i == 1 ? (b >= low && b <= high) : (b >= 0x80 && b <= 0xBF);
    if (!ok) break;
  }
  *valid = i > continuation;
  return i;
}

}  // namespace

void JsonText::grow(size_t n) {
  const size_t capacity = std::max({size_t{4096}, 2 * capacity_, size_ + n});
  auto data = std::make_unique<char[]>(capacity);
  if (size_ != 0) std::memcpy(data.get(), data_.get(), size_);
  data_ = std::move(data);
  capacity_ = capacity;
}

void JsonText::escaped(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* const end = p + s.size();
  // Bytes that need nothing are copied in runs, not one by one.
  const auto* run = p;
  auto flushRun = [&] {
    put(std::string_view(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run)));
  };
  while (p < end) {
    const unsigned char c = *p;
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      ++p;
      continue;
    }
    if (c >= 0x80) {
      bool valid;
      const size_t n = scanUtf8(p, end, &valid);
      if (valid) {
        p += n;
        continue;
      }
      flushRun();
      lit("\xEF\xBF\xBD");  // U+FFFD REPLACEMENT CHARACTER
      p += n;
      run = p;
      continue;
    }
    flushRun();
    switch (c) {
      case '"':
        lit("\\\"");
        break;
      case '\\':
        lit("\\\\");
        break;
      case '\n':
        lit("\\n");
        break;
      case '\t':
        lit("\\t");
        break;
      case '\r':
        lit("\\r");
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
        put(std::string_view(u, sizeof u));
      }
    }
    ++p;
    run = p;
  }
  flushRun();
}

bool JsonText::nonFinite(double v) {
  if (std::isfinite(v)) return false;
  if (std::isnan(v)) {
    lit("\"nan\"");
  } else if (v > 0) {
    lit("\"inf\"");
  } else {
    lit("\"-inf\"");
  }
  return true;
}

void JsonText::dbl(double v) {
  if (!nonFinite(v)) number(v);
}

void JsonText::flt(float v) {
  if (!nonFinite(v)) number(v);
}

void JsonText::dblDigits(double v, int digits) {
  if (nonFinite(v)) return;
  reserve(48);
  char* const at = data_.get() + size_;
  size_ = static_cast<size_t>(
      std::to_chars(at, at + 48, v, std::chars_format::general, digits).ptr - data_.get());
}

}  // namespace cuptitrace
