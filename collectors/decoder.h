// Turns CUPTI activity records into our own records. The only code that casts
// a CUpti_Activity*. Runs on the drain thread, never inside a CUPTI callback.
#pragma once

#include <cupti.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "core/trace.h"

namespace cuptitrace {

class Decoder {
 public:
  explicit Decoder(Trace& trace) : trace_(trace) {}

  // Decodes every record in a completed CUPTI buffer.
  void decodeBuffer(uint8_t* buffer, size_t validSize);
  // Decodes one record; kinds we do not handle are counted, never fatal.
  void decode(const CUpti_Activity* record);

  uint64_t decoded() const { return decoded_; }
  uint64_t unknown() const { return unknown_; }
  // Adds this decoder's counters to trace.counters.
  void publishCounters() const;

 private:
  StringId internPointer(const char* text);
  StringId apiName(ApiDomain domain, uint32_t cbid);
  void decodeDevice(const CUpti_Activity* record);
  void decodeContext(const CUpti_Activity* record);
  void decodeName(const CUpti_Activity* record);

  Trace& trace_;
  // CUPTI keeps each distinct kernel name at one address for the process's
  // life, so a pointer lookup saves hashing the string per record.
  std::unordered_map<const char*, StringId> pointerIds_;
  std::unordered_map<uint64_t, StringId> apiNames_;  // (domain << 32 | cbid) -> name
  uint64_t decoded_ = 0;
  uint64_t unknown_ = 0;
  uint64_t bufferErrors_ = 0;
};

// Name of an API call: CUPTI's callback name with the "_vNNNN" version
// suffix of runtime calls removed ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel").
std::string apiCallName(ApiDomain domain, const char* cuptiName);

}  // namespace cuptitrace
