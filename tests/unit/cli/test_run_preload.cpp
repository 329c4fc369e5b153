#include <catch2/catch.hpp>

#include "cli/run_command.h"

using cuptitrace::cli::osrtLibraryBeside;
using cuptitrace::cli::preloadWith;

TEST_CASE("run: the osrt preload library is the one beside the tracer") {
  CHECK(osrtLibraryBeside("/opt/cuptitrace/lib/libcuptitrace.so") == "/opt/cuptitrace/lib/libcuptitrace-osrt.so");
  CHECK(osrtLibraryBeside("build/injection/libcuptitrace.so") == "build/injection/libcuptitrace-osrt.so");
  CHECK(osrtLibraryBeside("libcuptitrace.so") == "libcuptitrace-osrt.so");
}

TEST_CASE("run: with osrt the preload library goes first in LD_PRELOAD, once") {
  const std::string lib = "/opt/cuptitrace/lib/libcuptitrace-osrt.so";
  CHECK(preloadWith(nullptr, lib) == lib);
  CHECK(preloadWith("", lib) == lib);
  CHECK(preloadWith("/usr/lib/libjemalloc.so", lib) == lib + ":/usr/lib/libjemalloc.so");
  CHECK(preloadWith("/a.so /b.so", lib) == lib + ":/a.so /b.so");
  // Already preloaded (by the user, or by an outer cuptitrace): left alone.
  CHECK(preloadWith(lib.c_str(), lib) == lib);
  CHECK(preloadWith(("/a.so:" + lib).c_str(), lib) == "/a.so:" + lib);
  CHECK(preloadWith(("/a.so " + lib + " /b.so").c_str(), lib) == "/a.so " + lib + " /b.so");
  // A longer path that merely contains it is another library.
  CHECK(preloadWith((lib + ".old").c_str(), lib) == lib + ":" + lib + ".old");
}
