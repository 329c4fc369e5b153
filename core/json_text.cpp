#include "core/json_text.h"

#include <algorithm>
#include <cmath>

#include "core/utf8.h"

namespace cuptitrace {
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
