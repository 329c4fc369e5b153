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

TEST_CASE("run: ACC_PROFLIB names the library, unless the user named their own") {
  using cuptitrace::cli::accProfLibFor;
  const std::string lib = "/opt/cuptitrace/lib/libcuptitrace.so";
  std::string note;
  CHECK(accProfLibFor(nullptr, lib, note) == lib);
  CHECK(accProfLibFor("", lib, note) == lib);
  CHECK(accProfLibFor(lib.c_str(), lib, note) == lib);
  CHECK(note.empty());
  // The OpenACC runtime loads one library: the user's is kept, and the note says so.
  CHECK(accProfLibFor("/opt/tau/lib/libTAU.so", lib, note).empty());
  CHECK(note.find("ACC_PROFLIB is set (/opt/tau/lib/libTAU.so)") != std::string::npos);
  CHECK(note.find("not recorded") != std::string::npos);
}

TEST_CASE("run: the Python start-up hook goes first on PYTHONPATH, once") {
  using cuptitrace::cli::pythonPathWith;
  const std::string hook = "/opt/cuptitrace/share/cuptitrace/python/cuptitrace_pyhook";
  CHECK(pythonPathWith(nullptr, hook) == hook);
  CHECK(pythonPathWith("", hook) == hook);
  CHECK(pythonPathWith("/home/me/src", hook) == hook + ":/home/me/src");
  CHECK(pythonPathWith(("/home/me/src:" + hook).c_str(), hook) == "/home/me/src:" + hook);
  CHECK(pythonPathWith((hook + "x").c_str(), hook) == hook + ":" + hook + "x");  // a longer name is another folder
}
