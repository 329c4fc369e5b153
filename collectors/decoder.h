// Turns CUPTI activity records into our own records. The only code that casts
// a CUpti_Activity*. Runs on the drain thread, never inside a CUPTI callback.
#pragma once

#include <cupti.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "collectors/cupti_layouts.h"
#include "core/kernel_filter.h"
#include "core/trace.h"

namespace cuptitrace {

class Decoder {
 public:
  // Reads records in `layout` (collectors/cupti_layouts.h): the one chosen
  // at start for the loaded libcupti. With None nothing is read, only counted.
  explicit Decoder(Trace& trace, RecordLayout layout = activeRecordLayout()) : trace_(trace), layout_(layout) {}

  // Decodes every record in a completed CUPTI buffer.
  void decodeBuffer(uint8_t* buffer, size_t validSize);
  // Decodes one record; kinds we do not handle are counted, never fatal.
  void decode(const CUpti_Activity* record);

  uint64_t decoded() const { return decoded_; }
  uint64_t unknown() const { return unknown_; }
  // Adds this decoder's counters to trace.counters.
  void publishCounters() const;

  // Kernels the filter does not keep are not stored (counted as filtered).
  void setKernelFilter(KernelFilter filter) { filter_ = std::move(filter); }
  // Removes the launch calls of the kernels left out (API records with their
  // correlation ids, unless other kept GPU work shares the id, as in a graph
  // launch). Once, after the last record is decoded.
  void removeFilteredLaunches();

 private:
  StringId internPointer(const char* text);
  StringId apiName(ApiDomain domain, uint32_t cbid);
  // Memory, memory pool and unified memory records: memory_decoder.cpp.
  void decodeMemory(const CUpti_Activity* record);
  void decodeMemoryPool(const CUpti_Activity* record);
  void decodeUvm(const CUpti_Activity* record);
  void decodeGraph(const CUpti_Activity* record);
  void decodeDevice(const CUpti_Activity* record);
  void decodeContext(const CUpti_Activity* record);
  void decodeName(const CUpti_Activity* record);
  void decodeOpenAcc(const CUpti_Activity* record);  // openacc_decoder.cpp
  // A string CUPTI copied from the OpenACC runtime, interned by its text: its
  // address may be reused for another name once the runtime frees it.
  StringId internText(const char* text);

  Trace& trace_;
  const RecordLayout layout_;
  // CUPTI keeps each distinct kernel name at one address for the process's
  // life, so a pointer lookup saves hashing the string per record.
  std::unordered_map<const char*, StringId> pointerIds_;
  std::unordered_map<uint64_t, StringId> apiNames_;  // (domain << 32 | cbid) -> name
  bool keepKernel(StringId name);

  KernelFilter filter_;
  std::vector<uint8_t> verdicts_;               // by kernel name id: 0 not asked yet, 1 keep, 2 leave out
  std::vector<uint32_t> filteredCorrelations_;  // of the kernels left out; sorted at the end
  uint64_t filteredKernels_ = 0;
  uint64_t filteredLaunches_ = 0;
  uint64_t decoded_ = 0;
  uint64_t unknown_ = 0;
  uint64_t bufferErrors_ = 0;
  uint64_t wrongLayout_ = 0;  // records not read: the loaded CUPTI writes other layouts
};

// Name of an API call: CUPTI's callback name with the "_vNNNN" version
// suffix of runtime calls removed ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel").
std::string apiCallName(ApiDomain domain, const char* cuptiName);

}  // namespace cuptitrace
