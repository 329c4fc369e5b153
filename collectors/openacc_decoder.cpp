// Decoding of CUPTI's three OpenACC record kinds (data, launch, other) into
// OpenAccRecord: the common part once, then the fields of each kind.
#include <string_view>

#include "collectors/cupti_versions.h"
#include "collectors/decoder.h"

namespace cuptitrace {
namespace {

// A line number as CUPTI passes it on: the runtime's int, where zero or a
// negative value (GCC's libgomp gives -1) means unknown. Ours: 0 when unknown.
uint32_t lineOf(uint32_t line) { return line >= 0x80000000u ? 0 : line; }

// The fields every OpenACC record has (CUpti_ActivityOpenAcc's part of each).
template <typename A>
OpenAccRecord commonPart(const A& a, OpenAccType type) {
  OpenAccRecord r{};
  r.type = static_cast<uint8_t>(type);
  r.eventKind = a.eventKind <= CUPTI_OPENACC_EVENT_KIND_FREE ? static_cast<uint8_t>(a.eventKind)
                                                             : static_cast<uint8_t>(OpenAccEvent::Invalid);
  r.parentConstruct = a.parentConstruct <= CUPTI_OPENACC_CONSTRUCT_KIND_RUNTIME_API
                          ? static_cast<uint8_t>(a.parentConstruct)
                          : static_cast<uint8_t>(CUPTI_OPENACC_CONSTRUCT_KIND_UNKNOWN);
  r.implicit = a.implicit != 0 ? 1 : 0;
  r.version = a.version;
  r.deviceType = a.deviceType;
  r.deviceNumber = a.deviceNumber;
  r.threadId = a.threadId;
  r.async = a.async;
  r.asyncMap = a.asyncMap;
  r.lineNo = lineOf(a.lineNo);
  r.endLineNo = lineOf(a.endLineNo);
  r.funcLineNo = lineOf(a.funcLineNo);
  r.funcEndLineNo = lineOf(a.funcEndLineNo);
  r.start = a.start;
  r.end = a.end;
  r.cuDeviceId = a.cuDeviceId;
  r.cuContextId = a.cuContextId;
  r.cuStreamId = a.cuStreamId;
  r.cuProcessId = a.cuProcessId;
  r.cuThreadId = a.cuThreadId;
  r.externalId = a.externalId;
  return r;
}

}  // namespace

StringId Decoder::internText(const char* text) {
  if (text == nullptr || *text == '\0') return kNoString;
  return trace_.strings.intern(std::string_view(text));
}

void Decoder::decodeOpenAcc(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_OPENACC_DATA: {
      const auto& a = *reinterpret_cast<const cupti::OpenAccDataActivity*>(record);
      OpenAccRecord r = commonPart(a, OpenAccType::Data);
      r.srcFile = internText(a.srcFile);
      r.funcName = internText(a.funcName);
      r.bytes = a.bytes;
      r.hostPtr = a.hostPtr;
      r.devicePtr = a.devicePtr;
      r.varName = internText(a.varName);
      trace_.store.add(r);
      return;
    }
    case CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH: {
      const auto& a = *reinterpret_cast<const cupti::OpenAccLaunchActivity*>(record);
      OpenAccRecord r = commonPart(a, OpenAccType::Launch);
      r.srcFile = internText(a.srcFile);
      r.funcName = internText(a.funcName);
      r.numGangs = a.numGangs;
      r.numWorkers = a.numWorkers;
      r.vectorLength = a.vectorLength;
      r.kernelName = internText(a.kernelName);
      trace_.store.add(r);
      return;
    }
    case CUPTI_ACTIVITY_KIND_OPENACC_OTHER: {
      const auto& a = *reinterpret_cast<const cupti::OpenAccOtherActivity*>(record);
      OpenAccRecord r = commonPart(a, OpenAccType::Other);
      r.srcFile = internText(a.srcFile);
      r.funcName = internText(a.funcName);
      trace_.store.add(r);
      return;
    }
    default:
      ++unknown_;
      return;
  }
}

}  // namespace cuptitrace
