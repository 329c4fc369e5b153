// Redirects the calls that the program and its libraries make to a few C
// library functions (_exit, sigaction, ...) to the tracer's own versions, by
// rewriting those functions' entries in each loaded object's global offset
// table. The tracer is loaded by the CUDA driver (dlopen), not preloaded, so
// symbol interposition cannot reach the program; the table can, for every
// object loaded by then (the program, libpython, the frameworks' libraries).
// Objects loaded later keep calling the C library directly.
#pragma once

#include <cstddef>

namespace cuptitrace {

struct GotRedirect {
  const char* symbol;  // the function's name, as the objects import it
  void* replacement;
};

struct GotPatchResult {
  int objects = 0;  // objects with at least one entry rewritten
  int entries = 0;  // entries rewritten in all
  int refused = 0;  // entries that could not be made writable
  char refusedObjects[256] = {};  // the objects holding them, comma-separated (cut if long)
};

// Rewrites every import of the named functions in every loaded object but
// the C library, the dynamic loader and the object holding `self` (an
// address inside the tracer). A read-only page (RELRO) is made writable for
// the store, then given back exactly the protection it had: the loader
// leaves the last, partial page of RELRO writable, as .data shares it.
// Never throws; safe to call once at start.
GotPatchResult redirectImports(const GotRedirect* redirects, size_t count, const void* self);

}  // namespace cuptitrace
