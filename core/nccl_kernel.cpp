#include "core/nccl_kernel.h"

#include <array>
#include <utility>
#include <vector>

namespace cuptitrace {
namespace {

constexpr std::string_view kNewPrefix = "ncclDevKernel_";
constexpr std::string_view kOldPrefix = "ncclKernel_";

bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The function's own name inside `name`: from the NCCL prefix to the end of
// the identifier. In a mangled name the identifier is followed straight by its
// parameters' encoding ("...RING_LL24ncclDevKernelArgs..."), so the length
// that precedes it ("_Z40") bounds it instead.
std::string_view functionName(std::string_view name, size_t at) {
  size_t digitsEnd = at;
  size_t digitsStart = at;
  while (digitsStart > 0 && name[digitsStart - 1] >= '0' && name[digitsStart - 1] <= '9')
    --digitsStart;
  if (digitsStart < digitsEnd && digitsEnd - digitsStart <= 4) {
    size_t length = 0;
    for (size_t i = digitsStart; i < digitsEnd; ++i)
      length = length * 10 + static_cast<size_t>(name[i] - '0');
    if (length > 0 && at + length <= name.size()) return name.substr(at, length);
  }
  size_t end = at;
  while (end < name.size() && isIdentChar(name[end])) ++end;
  return name.substr(at, end - at);
}

constexpr std::array<std::string_view, 12> kCollectives = {
    "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",  "SendRecv",
    "Send",      "Recv",      "AllToAll",      "Gather",    "Scatter", "Generic"};
constexpr std::array<std::string_view, 7> kOps = {"Sum",       "Prod",       "Max",   "Min",
                                                  "PreMulSum", "SumPostDiv", "MinMax"};
constexpr std::array<std::string_view, 3> kProtos = {"LL", "LL128", "SIMPLE"};
constexpr std::array<std::string_view, 5> kAlgos = {"RING", "TREE", "NVLS", "COLLNET", "PAT"};
// Second words of two-word algorithms: COLLNET_DIRECT, COLLNET_CHAIN, NVLS_TREE.
constexpr std::array<std::string_view, 3> kAlgoTails = {"DIRECT", "CHAIN", "TREE"};

// Element types: the short form NCCL >= 2.19 writes, and the C names older ones wrote.
constexpr std::array<std::pair<std::string_view, std::string_view>, 22> kTypes = {{
    {"i8", "i8"},      {"u8", "u8"},         {"i32", "i32"},       {"u32", "u32"},
    {"i64", "i64"},    {"u64", "u64"},       {"f16", "f16"},       {"f32", "f32"},
    {"f64", "f64"},    {"bf16", "bf16"},     {"f8e4m3", "f8e4m3"}, {"f8e5m2", "f8e5m2"},
    {"int8", "i8"},    {"uint8", "u8"},      {"int32", "i32"},     {"uint32", "u32"},
    {"int64", "i64"},  {"uint64", "u64"},    {"half", "f16"},      {"float", "f32"},
    {"double", "f64"}, {"bfloat16", "bf16"},
}};

template <size_t N>
bool oneOf(const std::array<std::string_view, N>& set, std::string_view word) {
  for (const auto s : set)
    if (s == word) return true;
  return false;
}

}  // namespace

bool parseNcclKernel(std::string_view name, NcclKernelInfo& info) {
  size_t at = name.find(kNewPrefix);
  size_t prefix = kNewPrefix.size();
  if (at == std::string_view::npos) {
    at = name.find(kOldPrefix);
    prefix = kOldPrefix.size();
  }
  if (at == std::string_view::npos) return false;
  // The prefix must start a name, not end a longer one ("myncclKernel_").
  if (at > 0 && isIdentChar(name[at - 1]) && !(name[at - 1] >= '0' && name[at - 1] <= '9'))
    return false;
  const std::string_view function = functionName(name, at);
  if (function.size() <= prefix) return false;

  std::vector<std::string_view> words;
  for (size_t pos = prefix; pos <= function.size();) {
    const size_t end = std::min(function.find('_', pos), function.size());
    if (end > pos) words.push_back(function.substr(pos, end - pos));
    pos = end + 1;
  }
  info = NcclKernelInfo{};
  for (size_t i = 0; i < words.size(); ++i) {
    std::string_view w = words[i];
    // "int8_t", "__nv_bfloat16": the "t" and "nv" words carry nothing.
    if (w == "t" || w == "nv") continue;
    if (info.collective.empty() && oneOf(kCollectives, w)) {
      info.collective = std::string(w);
    } else if (info.op.empty() && oneOf(kOps, w)) {
      info.op = std::string(w);
    } else if (info.algo.empty() && oneOf(kAlgos, w)) {
      info.algo = std::string(w);
      if (i + 1 < words.size() && oneOf(kAlgoTails, words[i + 1]) &&
          !(w == "RING" || w == "TREE" || w == "PAT")) {
        info.algo += "_";
        info.algo += words[++i];
      }
    } else if (info.proto.empty() && oneOf(kProtos, w)) {
      info.proto = std::string(w);
    } else if (info.dtype.empty()) {
      for (const auto& [spelling, shortName] : kTypes) {
        if (w == spelling) {
          info.dtype = std::string(shortName);
          break;
        }
      }
    }
  }
  // "ncclDevKernel_Generic_1" and the like: still NCCL's, if of no known collective.
  if (info.collective.empty())
    info.collective = std::string(words.empty() ? function : words.front());
  return true;
}

bool isNcclKernel(std::string_view name) {
  NcclKernelInfo info;
  return parseNcclKernel(name, info);
}

}  // namespace cuptitrace
