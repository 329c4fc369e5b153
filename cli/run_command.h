// `cuptitrace [options] -- program args`: sets the environment and runs the
// program in place of this process, so its exit code is the program's own.
#pragma once

namespace cuptitrace::cli {

int runCommand(int argc, char** argv);

}  // namespace cuptitrace::cli
