// Turns CUPTI's NVTX-domain callbacks (one per NVTX call the program makes)
// into NvtxRecorder calls: message, domain, colour, category and payload read
// from the call's parameters; timestamps from CUPTI's clock, so NVTX records
// line up with the activity records.
#pragma once

#include <cupti.h>

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "collectors/nvtx_recorder.h"
#include "core/string_table.h"

namespace cuptitrace {

class NvtxCallbacks {
 public:
  NvtxCallbacks(NvtxRecorder& recorder, StringTable& strings) : recorder_(recorder), strings_(strings) {}

  // Runs on the program's thread inside the NVTX call.
  void handle(CUpti_CallbackId cbid, const CUpti_NvtxData* data);

 private:
  NvtxAttributes fromEventAttributes(const void* eventAttributes, StringId domain);
  StringId domainId(const void* handle);
  StringId registeredString(const void* handle);

  NvtxRecorder& recorder_;
  StringTable& strings_;
  std::shared_mutex handlesMutex_;  // written on domain/string registration only
  std::unordered_map<const void*, StringId> domains_;
  std::unordered_map<const void*, StringId> registeredStrings_;
};

}  // namespace cuptitrace
