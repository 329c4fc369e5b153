#include "exporters/json/json_steps.h"

#include <vector>

#include "timeline/slice_categories.h"
#include "timeline/steps.h"

namespace cuptitrace {

uint64_t writeJsonSteps(const TimelineInput& in, JsonEvents& e, JsonTrackNames& names, uint64_t base) {
  const std::vector<Step> steps = profilerSteps(*in.trace);
  if (steps.empty()) return 0;
  const uint32_t pid = in.hostPid();
  names.nameEvent("thread_name", pid, kStepsTid, kStepsTrackName);
  JsonText& b = e.b;
  for (const Step& s : steps) {
    e.begin();
    b.lit("\"ph\":\"X\",\"cat\":\"");
    b.put(categoryName(kCatUserAnnotation));
    b.lit("\",\"name\":");
    b.quoted(s.label);
    b.lit(",\"pid\":");
    b.uint(pid);
    b.lit(",\"tid\":");
    b.uint(kStepsTid);
    b.lit(",\"ts\":");
    b.micros(static_cast<int64_t>(s.start - base));
    b.lit(",\"dur\":");
    b.micros(static_cast<int64_t>(s.end - s.start));
    e.end();
  }
  return steps.size();
}

}  // namespace cuptitrace
