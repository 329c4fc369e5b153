// The steps of a training loop, found by themselves: the time breakdown, the
// GPU summary and the findings are per step. The first rule that finds any
// steps wins, and the reports say which:
//   1. the range the user named (--step-range, CUPTITRACE_STEP_RANGE);
//   2. torch.profiler's "ProfilerStep#N" ranges;
//   3. NVTX ranges named like "step N", "iteration N", "iter N", "train_step" (any case);
//   4. with PyTorch's operators recorded: the optimizer's step() calls
//      ("Optimizer.step#SGD.step"), each step ending where an iteration's
//      calls end. Calls of one iteration are those with no iteration's work
//      between them: no data loader __next__ where the program uses one
//      (a GAN's two optimizers), else no other operator (per-module
//      optimizers stepped one after the other). The time before the first
//      iteration's calls end (start-up, the first iteration) is the warm-up:
//      no step, shown apart and left out of every average.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

struct Step {
  uint64_t start = 0, end = 0;
  std::string label;  // the range's name, or "step N" for steps between optimizer calls
  bool open = false;  // still open at exit: timed up to the end of the trace
};

struct Steps {
  std::vector<Step> steps;  // by start
  std::optional<Step> warmup;  // before the first step (the optimizer's rule), in no average
  std::string rule;         // which rule found them, in words; empty when none did
  std::string missed;       // the step range given, when no range is named so
};

// Whether a range's name reads like a step ("step 3", "Iteration 12", "train_step").
bool looksLikeStep(std::string_view name);

Steps findSteps(const Trace& trace, const std::string& stepRange);

// The steps the timeline draws as torch.profiler's steps ("ProfilerStep#0",
// "ProfilerStep#1", ...) on a track of their own, for the tools written for
// the PyTorch profiler's trace, which find its iterations by that name: the
// steps found with the trace's own step range (CUPTITRACE_STEP_RANGE), none
// where they are ProfilerStep#N ranges already; one that starts before the
// one before it ended is left out (the track's slices must not overlap).
std::vector<Step> profilerSteps(const Trace& trace);

}  // namespace cuptitrace
