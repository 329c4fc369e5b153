// Which of a trace's kernel names are NCCL's, each name parsed once
// (core/nccl_kernel.h): a trace repeats a few names millions of times.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/nccl_kernel.h"
#include "core/trace.h"

namespace cuptitrace {

class NcclNames {
 public:
  explicit NcclNames(const Trace& trace) : trace_(trace), state_(trace.strings.size(), kUnknown) {}

  // The collective behind kernel name `name`, or nullptr when it is not NCCL's.
  const NcclKernelInfo* find(StringId name) {
    if (name >= state_.size()) return lookup(name);  // interned after construction: rare
    if (state_[name] == kUnknown) state_[name] = lookup(name) != nullptr ? kNccl : kOther;
    return state_[name] == kNccl ? &parsed_.at(name) : nullptr;
  }

 private:
  enum : uint8_t { kUnknown, kNccl, kOther };
  const NcclKernelInfo* lookup(StringId name) {
    auto it = parsed_.find(name);
    if (it != parsed_.end()) return &it->second;
    NcclKernelInfo info;
    if (!parseNcclKernel(trace_.strings.get(name), info)) return nullptr;
    return &parsed_.emplace(name, std::move(info)).first->second;
  }

  const Trace& trace_;
  std::vector<uint8_t> state_;
  std::unordered_map<StringId, NcclKernelInfo> parsed_;
};

}  // namespace cuptitrace
