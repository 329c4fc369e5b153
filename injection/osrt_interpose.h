// The osrt activity's wrappers of C library calls (osrt_interpose.cpp). They
// take effect only when the library is in the program's global lookup scope
// (LD_PRELOAD): loaded by the CUDA driver alone, it is not, and the
// program's calls go straight to the C library.
#pragma once

namespace cuptitrace::osrt {

// True when the program's calls reach the wrappers (the library was preloaded).
bool wrappersActive();

}  // namespace cuptitrace::osrt
