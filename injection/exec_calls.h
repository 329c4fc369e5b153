// exec and its kin, as the program calls them (redirected here through the
// global offset tables, injection/redirected_calls.h): execve, execv,
// execvp, execvpe, execl, execlp, execle, fexecve and execveat.
//
// exec replaces the process without exit handlers, so the trace is written
// first, but only once the exec can be expected to succeed: the file exists,
// is a regular file and may be executed (searched along PATH as execvp
// searches). A program that tries one place after another (CPython's
// os.execvp, a shell) is not finalized by its misses. Should exec still
// fail after the trace was written, the program goes on untraced from there
// and one line says so, once. In a forked or vforked child (CPython's
// subprocess, which tries each PATH entry in turn) nothing happens at all:
// the call goes straight to the C library.
#pragma once

#include <cstddef>

#include "injection/got_patch.h"

namespace cuptitrace {

// The table entries of the exec calls; `count` is set to their number.
const GotRedirect* execRedirects(size_t& count);

}  // namespace cuptitrace
