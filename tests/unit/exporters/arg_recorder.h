// A sink for record_args.h's functions that notes which arguments a kind's
// function gives, as a format's sink sees them: an NCCL kernel's five names
// and the external id and scope pushed for a call each count as given.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "timeline/record_args.h"

namespace cuptitrace::testing {

struct ArgRecorder {
  std::vector<Arg> args;
  void note(Arg a) { args.push_back(a); }
  void u(Arg a, uint64_t) { note(a); }
  void i(Arg a, int64_t) { note(a); }
  void b(Arg a, bool) { note(a); }
  void real(Arg a, double, int) { note(a); }
  void single(Arg a, float) { note(a); }
  void string(Arg a, StringId) { note(a); }
  void text(Arg a, std::string_view) { note(a); }
  void label(Arg a, Label, uint8_t, const char*) { note(a); }
  void dim3(Arg a, int64_t, int64_t, int64_t) { note(a); }
  void where(Arg a, uint64_t) { note(a); }
  void json(Arg a, std::string_view) { note(a); }
  void nccl(StringId) {
    for (Arg a : {Arg::NcclCollective, Arg::NcclOp, Arg::NcclDtype, Arg::NcclAlgo, Arg::NcclProto})
      note(a);
  }
  void externalIds(uint32_t) {
    note(Arg::ExternalId);
    note(Arg::Scope);
  }
  bool has(Arg a) const { return std::find(args.begin(), args.end(), a) != args.end(); }
};

}  // namespace cuptitrace::testing
