#include "collectors/cupti_layouts.h"

#include <cupti.h>
#include <dlfcn.h>

#include <atomic>

#include "collectors/cupti_versions.h"

namespace cuptitrace {
namespace {

// Every CUPTI API version whose records we can read, and how. A version is
// listed only when its release notes and headers show that it writes, for
// every kind the decoder reads, the struct version cupti_versions.h names:
// - 13.0 (130000) introduced CUpti_ActivityKernel10 and MemoryPool3 (Kernel9,
//   MemoryPool2 were dropped); 13.0 Update 1 (130001) changed no record.
// - 13.1 and later write CUpti_ActivityKernel11, Context4, Device6, ...
// - 12.x wrote Kernel9 and MemoryPool2 (12.9), and older structs before 12.8
//   (Memcpy5, UnifiedMemoryCounter2, Synchronization): not read, refused.
// A later 13.0 patch level is refused too until its layouts are checked.
struct KnownVersion {
  uint32_t apiVersion;
  RecordLayout layout;
};
constexpr KnownVersion kKnownVersions[] = {
    {130000, RecordLayout::Cupti130},
    {130001, RecordLayout::Cupti130},
};

// The build's headers must be one of the releases above: cupti_versions.h
// names their structs. A newer toolkit fails here instead of mislabelling.
constexpr bool buildIsKnown() {
  for (const auto& v : kKnownVersions)
    if (v.apiVersion == CUPTI_API_VERSION) return true;
  return false;
}
static_assert(
    buildIsKnown(),
    "collectors/cupti_layouts.cpp: add this CUPTI_API_VERSION and check its record layouts");

// The 13.0 structs, as CUPTI 13.0 lays them out: a header that changed one of
// them is not the release this table speaks of.
static_assert(sizeof(cupti::KernelActivity) == 216);
static_assert(sizeof(cupti::MemcpyActivity) == 96);
static_assert(sizeof(cupti::MemcpyPtoPActivity) == 96);
static_assert(sizeof(cupti::MemsetActivity) == 88);
static_assert(sizeof(cupti::ApiActivity) == 40);
static_assert(sizeof(cupti::SyncActivity) == 56);
static_assert(sizeof(cupti::OverheadActivity) == 56);
static_assert(sizeof(cupti::DeviceActivity) == 184);
static_assert(sizeof(cupti::ContextActivity) == 32);
static_assert(sizeof(cupti::NameActivity) == 32);
static_assert(sizeof(cupti::MemoryActivity) == 128);
static_assert(sizeof(cupti::MemoryPoolActivity) == 80);
static_assert(sizeof(cupti::UvmActivity) == 104);
static_assert(sizeof(cupti::GraphActivity) == 56);
static_assert(sizeof(cupti::ExternalCorrelationActivity) == 24);
static_assert(sizeof(cupti::OpenAccDataActivity) == 152);
static_assert(sizeof(cupti::OpenAccLaunchActivity) == 152);
static_assert(sizeof(cupti::OpenAccOtherActivity) == 120);

std::atomic<RecordLayout> gActive{RecordLayout::Cupti130};

std::string loadedLibraryPath() {
  // The definition our calls reach: the libcupti that writes our records.
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) != 0 && info.dli_fname != nullptr)
    return info.dli_fname;
  return "libcupti (path unknown)";
}

}  // namespace

RecordLayout layoutOf(uint32_t version) {
  for (const auto& v : kKnownVersions)
    if (v.apiVersion == version) return v.layout;
  return RecordLayout::None;
}

std::string cuptiVersionText(uint32_t version) {
  // From 13.0 on the API version reads xxyyzz: CUDA major, minor, CUPTI patch.
  if (version >= 130000)
    return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + " (API " +
           std::to_string(version) + ")";
  return "API " + std::to_string(version);
}

LayoutDecision chooseRecordLayout(uint32_t buildVersion, uint32_t loadedVersion,
                                  const std::string& libraryPath) {
  LayoutDecision d;
  d.libraryPath = libraryPath;
  const RecordLayout built = layoutOf(buildVersion);
  const RecordLayout loaded = layoutOf(loadedVersion);
  if (built != RecordLayout::None && loaded == built) {
    d.layout = loaded;
    return d;
  }
  std::string readable;
  for (const auto& v : kKnownVersions) {
    if (v.layout != built) continue;
    if (!readable.empty()) readable += ", ";
    readable += std::to_string(v.apiVersion);
  }
  d.message = "cuptitrace: tracing is off for this process: the loaded CUPTI " +
              cuptiVersionText(loadedVersion) + " (" + libraryPath +
              ") writes activity records this build cannot read (built for CUPTI " +
              cuptiVersionText(buildVersion) + "; reads API versions " +
              (readable.empty() ? std::string("none") : readable) + "); the program runs untraced";
  return d;
}

LayoutDecision checkLoadedCupti(uint32_t loadedVersion) {
  LayoutDecision d = chooseRecordLayout(CUPTI_API_VERSION, loadedVersion, loadedLibraryPath());
  gActive.store(d.layout, std::memory_order_release);
  return d;
}

RecordLayout activeRecordLayout() { return gActive.load(std::memory_order_acquire); }

}  // namespace cuptitrace
