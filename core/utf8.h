#pragma once

#include <string>

namespace cuptitrace {

// UTF-8 text of a wide string (wchar_t holds UTF-32 on Linux). Code points
// that are not valid Unicode become U+FFFD. nullptr gives "".
std::string wideToUtf8(const wchar_t* text);

}  // namespace cuptitrace
