#include "timeline/steps.h"

#include <algorithm>
#include <cctype>

#include "timeline/thread_ranges.h"
#include "timeline/torch_ops.h"

namespace cuptitrace {
namespace {

constexpr const char* kProfilerStepRule = "torch.profiler's ProfilerStep#N ranges";

bool hasTime(const NvtxRecord& n) {
  return static_cast<NvtxType>(n.type) != NvtxType::Mark && n.end != 0 && n.end >= n.start;
}

void sortSteps(std::vector<Step>& steps) {
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    return a.start < b.start || (a.start == b.start && a.end < b.end);
  });
}

// Ranges whose message passes `pick`, as steps.
template <typename Pick>
std::vector<Step> rangesAsSteps(const Trace& trace, Pick&& pick) {
  std::vector<Step> steps;
  trace.store.records<NvtxRecord>().forEach([&](const NvtxRecord& n) {
    if (!hasTime(n)) return;
    const std::string_view message = trace.strings.get(n.message);
    if (pick(n, message)) steps.push_back({n.start, n.end, std::string(message), (n.flags & kNvtxOpen) != 0});
  });
  sortSteps(steps);
  return steps;
}

}  // namespace

bool looksLikeStep(std::string_view name) {
  std::string lower;
  for (const char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!lower.empty() && lower.back() == ' ') lower.pop_back();
  for (const std::string_view word : {"train_step", "training_step", "iteration", "iter", "step"}) {
    if (lower.compare(0, word.size(), word) != 0) continue;
    std::string_view rest = std::string_view(lower).substr(word.size());
    if (rest.empty()) return word == "train_step" || word == "training_step";
    // A separator, then a number: "step 3", "step_3", "step#3", "iteration: 12".
    size_t i = 0;
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == '_' || rest[i] == '#' || rest[i] == ':' ||
                               rest[i] == '=' || rest[i] == '-'))
      ++i;
    if (i == rest.size()) return false;
    for (size_t j = i; j < rest.size(); ++j)
      if (!std::isdigit(static_cast<unsigned char>(rest[j]))) return false;
    return true;
  }
  return false;
}

Steps findSteps(const Trace& trace, const std::string& stepRange) {
  Steps out;
  if (!stepRange.empty()) {
    out.steps = rangesAsSteps(trace, [&](const NvtxRecord&, std::string_view m) {
      return m.compare(0, stepRange.size(), stepRange) == 0;
    });
    out.rule = "NVTX ranges named '" + stepRange + "' or starting so (the step range given)";
    if (!out.steps.empty()) return out;
    out.rule.clear();
    out.missed = stepRange;
  }
  out.steps = rangesAsSteps(trace, [](const NvtxRecord&, std::string_view m) {
    return m.compare(0, 13, "ProfilerStep#") == 0;
  });
  if (!out.steps.empty()) {
    out.rule = kProfilerStepRule;
    return out;
  }
  out.steps = rangesAsSteps(trace, [&](const NvtxRecord& n, std::string_view m) {
    if (n.domain != kNoString) {
      const std::string_view domain = trace.strings.get(n.domain);
      if (domain == kScopeNvtxDomain || domain == kPythonNvtxDomain) return false;
    }
    return looksLikeStep(m);
  });
  if (!out.steps.empty()) {
    out.rule = "NVTX ranges named like 'step N', 'iteration N' or 'train_step'";
    return out;
  }
  // The optimizer's step() calls, grouped by iteration: a step runs from the end of one
  // iteration's calls to the end of the next's; before the first end is the warm-up.
  std::vector<Step> calls = rangesAsSteps(trace, [](const NvtxRecord& n, std::string_view m) {
    if (n.domain != kNoString || static_cast<NvtxType>(n.type) != NvtxType::PushPop) return false;
    const TorchRange t = parseTorchRange(m);
    return t.role == RangeRole::Optimizer && t.name.find(".step#") != std::string_view::npos;
  });
  if (calls.empty()) return out;
  {
    // A call inside another (a wrapped optimizer) is part of that one.
    std::stable_sort(calls.begin(), calls.end(), [](const Step& a, const Step& b) {
      return a.start < b.start || (a.start == b.start && a.end > b.end);
    });
    std::vector<Step> outer;
    for (Step& c : calls)
      if (outer.empty() || c.start >= outer.back().end) outer.push_back(std::move(c));
    calls = std::move(outer);
  }
  uint64_t firstOp = calls.front().start;
  TorchRanges roles(trace);
  // The optimizer's ranges (step, zero_grad) per thread: operators inside them are its own.
  const ThreadRanges optimizer = ThreadRanges::build(trace, [&](const NvtxRecord& n) {
    return roles.role(n) == RangeRole::Optimizer;
  });
  // Starts of what separates iterations: the data loader's __next__ where there is one, else
  // any operator outside the optimizer's calls.
  std::vector<uint64_t> loader, work;
  trace.store.records<NvtxRecord>().forEach([&](const NvtxRecord& n) {
    if (!hasTime(n)) return;
    const RangeRole role = roles.role(n);
    if (role == RangeRole::None) return;
    firstOp = std::min(firstOp, n.start);
    if (role == RangeRole::DataLoader) loader.push_back(n.start);
    else if (role == RangeRole::Operator && optimizer.innermost(n.threadId, n.start) == kNoRange)
      work.push_back(n.start);
  });
  std::vector<uint64_t>& separators = loader.empty() ? work : loader;
  std::sort(separators.begin(), separators.end());
  auto separated = [&](uint64_t from, uint64_t to) {  // a separator starts in [from, to)
    const auto it = std::lower_bound(separators.begin(), separators.end(), from);
    return it != separators.end() && *it < to;
  };
  std::vector<Step> ends;  // the last call of each iteration
  for (size_t i = 0; i < calls.size(); ++i) {
    if (!ends.empty() && !separated(ends.back().end, calls[i].start)) ends.back() = calls[i];
    else ends.push_back(calls[i]);
  }
  out.warmup = Step{firstOp, ends.front().end, "warm-up", ends.front().open};
  for (size_t i = 1; i < ends.size(); ++i)
    out.steps.push_back({ends[i - 1].end, ends[i].end, "step " + std::to_string(out.steps.size()), ends[i].open});
  out.rule = std::string("the optimizer's step() calls (Optimizer.step#...): each step ends where an iteration's "
                         "calls end (calls with no ") +
             (loader.empty() ? "other operator" : "data loader __next__") +
             " between them are one iteration's); before the first, warm-up";
  return out;
}

std::vector<Step> profilerSteps(const Trace& trace) {
  std::string stepRange;
  for (const auto& [name, value] : trace.meta.config)
    if (name == "CUPTITRACE_STEP_RANGE") stepRange = value;
  Steps found = findSteps(trace, stepRange);
  if (found.rule == kProfilerStepRule) return {};
  std::vector<Step> steps;
  for (Step& s : found.steps) {
    if (!steps.empty() && s.start < steps.back().end) continue;
    s.label = "ProfilerStep#" + std::to_string(steps.size());
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace cuptitrace
