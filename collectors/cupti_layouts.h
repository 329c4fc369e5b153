// Which CUPTI releases write activity records in the layouts the decoder reads
// (the struct versions named in cupti_versions.h), decided once at start from
// the libcupti actually loaded. A framework may ship its own libcupti.so.13
// (same soname, newer release) whose records have other layouts
// (CUpti_ActivityKernel11, Device6, ...): reading those through our structs
// would give wrong fields, so such a library is refused and the program runs
// untraced.
#pragma once

#include <cstdint>
#include <string>

namespace cuptitrace {

// A family of CUPTI releases that write the same struct version for every
// kind the decoder reads.
enum class RecordLayout : uint8_t {
  None,      // refused: no record is read
  Cupti130,  // CUPTI 13.0 and 13.0 Update 1 (API 130000, 130001)
};

struct LayoutDecision {
  RecordLayout layout = RecordLayout::None;
  std::string message;      // one line, when refused
  std::string libraryPath;  // the loaded libcupti
  bool supported() const { return layout != RecordLayout::None; }
};

// The layout records of `loadedVersion` (cuptiGetVersion) have, for a build
// against `buildVersion` (CUPTI_API_VERSION); `libraryPath` names the loaded
// libcupti in the refusal. A pure function: tests call it with any versions.
LayoutDecision chooseRecordLayout(uint32_t buildVersion, uint32_t loadedVersion,
                                  const std::string& libraryPath);

// The layout of the CUPTI API versions `version` (or None when unknown).
RecordLayout layoutOf(uint32_t version);

// "13.0 (API 130001)", "API 28": how a version is named in messages.
std::string cuptiVersionText(uint32_t version);

// The loaded libcupti: asks it for its version and where it was loaded from,
// decides, and keeps the layout for every Decoder made afterwards.
LayoutDecision checkLoadedCupti(uint32_t loadedVersion);
// The layout chosen at start (the build's own until a check ran).
RecordLayout activeRecordLayout();

}  // namespace cuptitrace
