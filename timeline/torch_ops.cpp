#include "timeline/torch_ops.h"

#include <cctype>

namespace cuptitrace {
namespace {

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool endsWithBackwardNode(std::string_view name) {
  // "ConvolutionBackward0", "AddmmBackward0", "torch::autograd::AccumulateGrad" is not one.
  size_t end = name.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  if (end == name.size()) return false;
  constexpr std::string_view kBackward = "Backward";
  return end >= kBackward.size() && name.substr(end - kBackward.size(), kBackward.size()) == kBackward;
}

bool parseInt(std::string_view s, int64_t& out) {
  if (s.empty() || s.size() > 18) return false;
  bool negative = s[0] == '-';
  if (negative) s.remove_prefix(1);
  if (s.empty()) return false;
  int64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = negative ? -v : v;
  return true;
}

// Where the fields PyTorch appends begin: the first ", seq = ", ", op_id = ",
// ", sizes = " or ", input_op_ids = " (a name itself may hold commas).
size_t fieldsStart(std::string_view text) {
  size_t best = std::string_view::npos;
  for (const std::string_view key : {", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "}) {
    const size_t at = text.find(key);
    if (at < best) best = at;
  }
  return best;
}

}  // namespace

TorchRange parseTorchRange(std::string_view text) {
  TorchRange out;
  const size_t fields = fieldsStart(text);
  out.name = text.substr(0, fields);
  if (fields != std::string_view::npos) {
    std::string_view rest = text.substr(fields);
    if (const size_t at = rest.find(", seq = "); at != std::string_view::npos) {
      std::string_view v = rest.substr(at + 8);
      v = v.substr(0, v.find(','));
      int64_t seq = -1;
      if (parseInt(v, seq)) out.seq = seq;
    }
    if (const size_t at = rest.find(", op_id = "); at != std::string_view::npos) {
      std::string_view v = rest.substr(at + 10);
      v = v.substr(0, v.find(','));
      int64_t id = -1;
      if (parseInt(v, id)) out.opId = id;
    }
    if (const size_t at = rest.find(", sizes = "); at != std::string_view::npos) {
      std::string_view v = rest.substr(at + 10);
      // The shapes run to their closing bracket: "[[1, 2], []]".
      int level = 0;
      size_t end = 0;
      for (; end < v.size(); ++end) {
        if (v[end] == '[') ++level;
        else if (v[end] == ']' && --level == 0) break;
      }
      out.shapes = v.substr(0, end < v.size() ? end + 1 : v.size());
    }
  }
  const std::string_view name = out.name;
  if (startsWith(name, "enumerate(DataLoader)#")) {
    out.role = RangeRole::DataLoader;
  } else if (startsWith(name, "ProfilerStep#")) {
    out.role = RangeRole::ProfilerStep;
  } else if (startsWith(name, "Optimizer.")) {
    out.role = RangeRole::Optimizer;
  } else if (fields != std::string_view::npos || name.find("::") != std::string_view::npos ||
             endsWithBackwardNode(name)) {
    out.role = RangeRole::Operator;
  }
  out.backward = endsWithBackwardNode(name) || startsWith(name, "autograd::engine::evaluate_function: ");
  return out;
}

SliceCategory rangeCategory(RangeRole role) {
  switch (role) {
    case RangeRole::None: return kCatNvtx;
    case RangeRole::ProfilerStep: return kCatUserAnnotation;
    case RangeRole::Operator:
    case RangeRole::DataLoader:
    case RangeRole::Optimizer: return kCatCpuOp;
  }
  return kCatNvtx;
}

RangeRole TorchRanges::role(const NvtxRecord& r) {
  if (r.domain != kNoString || static_cast<NvtxType>(r.type) != NvtxType::PushPop) return RangeRole::None;
  if (r.message >= roles_.size()) roles_.resize(static_cast<size_t>(r.message) + 1, -1);
  int8_t& role = roles_[r.message];
  if (role < 0) role = static_cast<int8_t>(parseTorchRange(trace_.strings.get(r.message)).role);
  return static_cast<RangeRole>(role);
}

}  // namespace cuptitrace
