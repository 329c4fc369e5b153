// `cuptitrace [options] -- program args`: sets the environment and runs the
// program in place of this process, so its exit code is the program's own.
#pragma once

#include <string>

namespace cuptitrace::cli {

int runCommand(int argc, char** argv);

// The osrt preload library installed beside `library` (libcuptitrace.so).
std::string osrtLibraryBeside(const std::string& library);
// libcuptitrace-watch.so beside the library.
std::string watchLibraryBeside(const std::string& library);

// LD_PRELOAD's value `current` (may be null) with `library` first, unless it
// is already in the list (entries split by colons or spaces).
std::string preloadWith(const char* current, const std::string& library);

// PYTHONPATH's value `current` (may be null) with `folder` first, unless it is
// already in the list.
std::string pythonPathWith(const char* current, const std::string& folder);

// What to do with ACC_PROFLIB, whose value is `current` (may be null), for an
// OpenACC runtime to load `library`: the value to set, or empty to leave it.
// The OpenACC specification names one library there (no list), so a user's
// own profiling library is kept and `note` says OpenACC events are not recorded.
std::string accProfLibFor(const char* current, const std::string& library, std::string& note);

}  // namespace cuptitrace::cli
