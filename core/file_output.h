// Writing one output file safely: into a new temporary file beside it (never
// through a symlink someone planted), checked for write errors (a full disk,
// a file size limit), then renamed into place — without replacing an existing
// file unless asked. A file that exists under its final name is complete.
//
// The bytes are in the page cache when the name appears: every process sees
// the whole file, and the kernel writes it to the disk in the background, so
// a program's exit never waits for the disk. Only a machine that loses power
// in the seconds after can lose it; CUPTITRACE_SYNC=1 makes every file reach
// the disk (fsync) before its name does.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace cuptitrace {

// Whether files reach the disk before their names (CUPTITRACE_SYNC=1).
bool syncOutputs();

// Writes `path` with `write`. Returns "" on success, else one line saying what
// went wrong and naming the path; nothing is left behind on failure.
std::string writeFileSafely(const std::string& path, const std::function<void(std::ostream&)>& write,
                            bool overwrite);

// The same for a writer that needs a file name rather than a stream (a
// database library): `write` fills the new empty file at the temporary path
// it is given and returns "" or what went wrong.
std::string writeFileSafelyAt(const std::string& path,
                              const std::function<std::string(const std::string& tmpPath)>& write, bool overwrite);

}  // namespace cuptitrace
