// `cuptitrace convert TRACE.native --to json|json.gz|csv|native|pftrace [-o PREFIX] [--split SIZE]`.
#pragma once

namespace cuptitrace::cli {

int convertCommand(int argc, char** argv);

}  // namespace cuptitrace::cli
