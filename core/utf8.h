#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cuptitrace {

// UTF-8 text of a wide string (wchar_t holds UTF-32 on Linux). Code points
// that are not valid Unicode become U+FFFD. nullptr gives "".
std::string wideToUtf8(const wchar_t* text);

// The UTF-8 sequence at `p` (p < end): its length when it is valid (*valid
// true), or else the length of its longest valid prefix, at least 1 (*valid
// false). Replacing that prefix with one U+FFFD and going on from the byte
// after it is the "maximal subpart" practice of the Unicode standard (3.9):
// a stray byte costs one replacement character and swallows nothing valid.
size_t scanUtf8(const unsigned char* p, const unsigned char* end, bool* valid);

// `s` with each invalid sequence replaced by U+FFFD, as scanUtf8 delimits them.
std::string validUtf8(std::string_view s);

// True when `s` is valid UTF-8 as it is: what a text writer checks first, so
// that the common case (ASCII names) costs a scan and no copy.
bool isValidUtf8(std::string_view s);

}  // namespace cuptitrace
