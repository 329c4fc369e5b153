// The steps of a training loop (timeline/steps.h profilerSteps) as the
// PyTorch profiler writes its steps: X events named "ProfilerStep#N" in the
// category "user_annotation", on the host process's "Steps" track.
#pragma once

#include <cstdint>

#include "exporters/json/json_events.h"
#include "exporters/json/json_track_names.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

// Writes them, times relative to `base`; returns how many.
uint64_t writeJsonSteps(const TimelineInput& in, JsonEvents& e, JsonTrackNames& names, uint64_t base);

}  // namespace cuptitrace
