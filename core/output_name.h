// Output file names from the CUPTITRACE_OUTPUT template:
//   %h       the host name
//   %p       the process id
//   %r       the rank a launcher gave the process (torchrun, mpirun, srun:
//            core/rank_info.h); "pid<PID>" when it has none (the launcher
//            itself), so that its files never take a rank's name
//   %q{VAR}  the value of environment variable VAR (an MPI rank:
//            %q{OMPI_COMM_WORLD_RANK}); unset: nothing, and one warning
//   %n       a sequence number: the smallest n >= 1 for which no file of the
//            prefix exists yet (PREFIX.json, PREFIX.kernels.csv, ...)
//   %%       a percent sign
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace cuptitrace {

struct OutputNameInputs {
  uint32_t pid = 0;
  std::string host;
  int64_t rank = -1;  // for %r; negative: none
  // Environment lookup for %q{VAR}; nullptr or unset: the variable is missing.
  std::function<const char*(const char*)> env;
};

// Checks a template: every % starts one of the escapes above, %q{...} is
// closed around a variable name, %n is not in a directory part. False (and
// why) otherwise.
bool checkOutputTemplate(std::string_view pattern, std::string* why = nullptr);

// Expands the escapes, with `sequence` for %n. A %q{VAR} whose variable is
// unset expands to nothing and adds one message per variable to `messages`.
// Sequences that are not escapes are kept as written.
std::string expandOutputName(std::string_view pattern, const OutputNameInputs& inputs, uint64_t sequence,
                             std::vector<std::string>* messages = nullptr);
// Without %q and %n (they expand to nothing and 1) and without a rank.
std::string expandOutputName(std::string_view pattern, uint32_t pid, std::string_view host);

bool usesSequence(std::string_view pattern);

// True when a file named PREFIX.<anything> exists: an output of that prefix,
// or one being written (PREFIX.json.partial-...), or a claim (PREFIX.lock).
bool outputPrefixInUse(const std::string& prefix);

// The prefix to write under. With %n: the smallest free number, claimed with
// a PREFIX.lock file created exclusively, so processes finishing at the same
// time into one directory get distinct numbers. Release it once the outputs
// are written (they keep the number taken from then on).
struct ClaimedPrefix {
  std::string prefix;
  std::string lockPath;  // empty: nothing claimed
};
ClaimedPrefix claimOutputPrefix(std::string_view pattern, const OutputNameInputs& inputs,
                                std::vector<std::string>* messages = nullptr);
void releaseOutputPrefix(ClaimedPrefix& claimed);

}  // namespace cuptitrace
