// The directory of the outputs: made when it is missing, and replaced by a
// temporary directory when it cannot be written, so that a run is never lost
// to a typo in CUPTITRACE_OUTPUT or a read-only working directory.
#pragma once

#include <string>
#include <string_view>

#include "core/output_name.h"

namespace cuptitrace {

struct OutputPlace {
  std::string pattern;  // the template to use: the one given, or its file part in the fallback directory
  std::string message;  // one line for the user when the directory changed or was made; empty otherwise
  bool usable = true;   // false: neither the directory nor a temporary one can be written
};

// The directory part of `pattern` (expanded with `inputs`; %n never stands
// in a directory) is made with its parents when missing. When it cannot be
// made or written, the outputs go to $TMPDIR (or /tmp) under the same file
// name. `fallbackDir` replaces $TMPDIR for tests; empty: the environment's.
OutputPlace prepareOutputDirectory(std::string_view pattern, const OutputNameInputs& inputs,
                                   const std::string& fallbackDir = {});

// Makes `dir` and its parents (mode 0777 less the umask). "" on success, else why.
std::string makeDirectories(const std::string& dir);

// True when a file can be created in `dir` (tried, not guessed from the mode bits).
bool directoryWritable(const std::string& dir, std::string* why = nullptr);

}  // namespace cuptitrace
