// `cuptitrace convert TRACE.native --to json|csv|native [-o PREFIX]`.
#pragma once

namespace cuptitrace::cli {

int convertCommand(int argc, char** argv);

}  // namespace cuptitrace::cli
