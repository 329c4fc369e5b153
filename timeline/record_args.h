// Each record kind's arguments on the timeline, described once. The table of
// argument names (kArgNames) and the functions below, one per record kind,
// say which arguments a slice or instant carries, of which type and in which
// order; the timeline formats only encode them: the Chrome JSON writer as
// "args" members, the .pftrace writer as debug annotations with interned
// names. Adding an argument to a kind is one edit here, and it appears in
// both formats.
//
// A format implements a sink with these members (Arg names the argument):
//   u(Arg, uint64_t)  i(Arg, int64_t)  b(Arg, bool)
//   real(Arg, double, int digits)  a double: its shortest text in JSON, or `digits` significant ones
//   single(Arg, float)             a float payload, as its shortest text in JSON
//   string(Arg, StringId)          an interned string of the trace (NVTX domain)
//   text(Arg, std::string_view)    text of our own, nothing to escape (a color)
//   label(Arg, Label, uint8_t code, const char* text)
//                                  an enum's name (text), for `code` in the enum `Label`
//   dim3(Arg, int64_t x, int64_t y, int64_t z)   "[x,y,z]"
//   nccl(StringId kernelName)      an NCCL kernel's collective, op, dtype, algo, proto
//   externalIds(uint32_t correlationId)  External id, scope, scope_id pushed for the call
//   where(Arg, uint64_t)           where GPU work ran (device, stream): what its track says
//                                  already; the JSON writer writes it, since the readers of
//                                  the PyTorch profiler's trace read it from the arguments,
//                                  the .pftrace and CSV writers leave it to the track and columns
//   json(Arg, std::string_view)    JSON text of PyTorch's own (an operator's input sizes,
//                                  "[[64], [64, 128]]"), as a value in JSON, as text elsewhere
// What depends on the layout rather than the record (clamped_ns, arrows)
// stays with the writers.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/records.h"
#include "timeline/torch_ops.h"

namespace cuptitrace {

// clang-format off
#define CUPTITRACE_TIMELINE_ARGS(X)                            \
  X(Device, "device")                                          \
  X(Context, "context")                                        \
  X(Stream, "stream")                                          \
  X(Correlation, "correlation")                                \
  X(Grid, "grid")                                              \
  X(Block, "block")                                            \
  X(RegistersPerThread, "registers")                           \
  X(StaticSharedMemory, "static_smem")                         \
  X(DynamicSharedMemory, "dynamic_smem")                       \
  X(GraphId, "graph_id")                                       \
  X(GraphNodeId, "graph_node_id")                              \
  X(LaunchType, "launch_type")                                 \
  X(DeviceLaunched, "device_launched")                         \
  X(ClampedNs, "clamped_ns")                                   \
  X(ReturnValue, "return_value")                               \
  X(Domain, "domain")                                          \
  X(Bytes, "bytes")                                            \
  X(CopyKind, "copy_kind")                                     \
  X(SrcKind, "src_kind")                                       \
  X(DstKind, "dst_kind")                                       \
  X(Async, "async")                                            \
  X(BandwidthGBps, "bandwidth_GBps")                           \
  X(SrcDevice, "src_device")                                   \
  X(DstDevice, "dst_device")                                   \
  X(Value, "value")                                            \
  X(MemoryKind, "memory_kind")                                 \
  X(Event, "event")                                            \
  X(Thread, "thread")                                          \
  X(EndThread, "end_thread")                                   \
  X(NvtxCategory, "category")                                  \
  X(Color, "color")                                            \
  X(Payload, "payload")                                        \
  X(Open, "open")                                              \
  X(Depth, "depth")                                            \
  X(RangeId, "range_id")                                       \
  X(ToolVersion, "tool_version")                               \
  X(Clock, "clock")                                            \
  X(RealtimeOffsetNs, "realtime_offset_ns")                    \
  X(Host, "host")                                              \
  X(Pid, "pid")                                                \
  X(DroppedRecords, "dropped_records")                         \
  X(IncompleteRecords, "incomplete_records")                   \
  X(ClampedSlices, "clamped_slices")                           \
  X(Flows, "flows")                                            \
  X(ExternalId, "External id")                                 \
  X(Scope, "scope")                                            \
  X(ScopeId, "scope_id")                                       \
  X(Errno, "errno")                                            \
  X(Rank, "rank")                                              \
  X(LocalRank, "local_rank")                                   \
  X(WorldSize, "world_size")                                   \
  X(NcclCollective, "nccl_collective")                         \
  X(NcclOp, "nccl_op")                                         \
  X(NcclDtype, "nccl_dtype")                                   \
  X(NcclAlgo, "nccl_algo")                                     \
  X(NcclProto, "nccl_proto")                                   \
  X(MaxLanes, "max_lanes")                                     \
  X(LaneTracks, "lane_tracks")                                 \
  X(EndDevice, "end_device")                                   \
  X(AccEvent, "acc_event")                                     \
  X(AccConstruct, "construct")                                 \
  X(AccSrcFile, "src_file")                                    \
  X(AccLine, "line")                                           \
  X(AccEndLine, "end_line")                                    \
  X(AccFunction, "function")                                   \
  X(AccFunctionLine, "function_line")                          \
  X(AccFunctionEndLine, "function_end_line")                   \
  X(AccVariable, "variable")                                   \
  X(AccHostPtr, "host_ptr")                                    \
  X(AccDevicePtr, "device_ptr")                                \
  X(AccKernel, "kernel")                                       \
  X(AccGangs, "gangs")                                         \
  X(AccWorkers, "workers")                                     \
  X(AccVectorLength, "vector_length")                          \
  X(AccAsyncMap, "async_map")                                  \
  X(AccImplicit, "implicit")                                   \
  X(AccOpenAccId, "openacc_id")                                \
  X(AccThread, "acc_thread")                                   \
  X(AccDeviceType, "device_type")                              \
  X(AccDeviceNumber, "device_number")                          \
  X(AccVersion, "version")                                     \
  X(Python, "python")                                          \
  X(SequenceNumber, "Sequence number")                         \
  X(InputDims, "Input Dims")
// clang-format on

// The arguments, numbered from 1 (0 is no argument): the .pftrace writer
// uses these numbers as the interned ids of their names.
enum class Arg : uint32_t {
  None = 0,
#define CUPTITRACE_ARG_ENUM(id, name) id,
  CUPTITRACE_TIMELINE_ARGS(CUPTITRACE_ARG_ENUM)
#undef CUPTITRACE_ARG_ENUM
      Count
};
inline constexpr const char* kArgNames[] = {"",
#define CUPTITRACE_ARG_NAME(id, name) name,
                                            CUPTITRACE_TIMELINE_ARGS(CUPTITRACE_ARG_NAME)
#undef CUPTITRACE_ARG_NAME
};
inline constexpr uint32_t kArgCount = static_cast<uint32_t>(Arg::Count);
static_assert(sizeof(kArgNames) / sizeof(kArgNames[0]) == kArgCount);
static_assert(kArgCount < 128, "argument name iids must stay one-byte varints");

inline const char* argName(Arg a) { return kArgNames[static_cast<uint32_t>(a)]; }
// The argument of that name; Arg::None when none has it.
inline Arg argNamed(std::string_view name) {
  for (uint32_t a = 1; a < kArgCount; ++a)
    if (name == kArgNames[a]) return static_cast<Arg>(a);
  return Arg::None;
}

// The enums whose names are argument values (the .pftrace writer interns each name once).
enum class Label : uint8_t { CopyKind, MemoryKind, LaunchType };

// Inlined into each format's writer, so that an argument's name is a constant there.
#define CUPTITRACE_ARGS_FN template <typename Sink> inline __attribute__((always_inline)) void

inline bool isDriverCall(const ApiRecord& r) { return r.domain == static_cast<uint8_t>(ApiDomain::Driver); }
inline bool isOsrtCall(const ApiRecord& r) { return r.domain == static_cast<uint8_t>(ApiDomain::Osrt); }

CUPTITRACE_ARGS_FN graphNodeArgs(uint32_t graphId, uint64_t graphNodeId, Sink& s) {
  if (graphId != 0) s.u(Arg::GraphId, graphId);
  if (graphNodeId != 0) s.u(Arg::GraphNodeId, graphNodeId);
}

// Where GPU work ran, under the names the PyTorch profiler gives them.
CUPTITRACE_ARGS_FN gpuWhereArgs(uint32_t deviceId, uint32_t streamId, Sink& s) {
  s.where(Arg::Device, deviceId);
  s.where(Arg::Stream, streamId);
}

CUPTITRACE_ARGS_FN kernelArgs(const KernelRecord& k, Sink& s) {
  gpuWhereArgs(k.deviceId, k.streamId, s);
  s.u(Arg::Correlation, k.correlationId);
  s.dim3(Arg::Grid, k.gridX, k.gridY, k.gridZ);
  s.dim3(Arg::Block, k.blockX, k.blockY, k.blockZ);
  s.u(Arg::RegistersPerThread, k.registersPerThread);
  s.i(Arg::StaticSharedMemory, k.staticSharedMemory);
  s.i(Arg::DynamicSharedMemory, k.dynamicSharedMemory);
  graphNodeArgs(k.graphId, k.graphNodeId, s);
  if (k.launchType != static_cast<uint8_t>(KernelLaunchType::Regular))
    s.label(Arg::LaunchType, Label::LaunchType, k.launchType, launchTypeName(k.launchType));
  if (k.isDeviceLaunched) s.b(Arg::DeviceLaunched, true);
  s.nccl(k.name);
  s.externalIds(k.correlationId);
}

CUPTITRACE_ARGS_FN memcpyArgs(const MemcpyRecord& m, Sink& s) {
  const auto copyKind = static_cast<CopyKind>(m.copyKind);
  gpuWhereArgs(m.deviceId, m.streamId, s);
  s.u(Arg::Bytes, m.bytes);
  s.label(Arg::CopyKind, Label::CopyKind, m.copyKind, copyKindName(copyKind));
  s.label(Arg::SrcKind, Label::MemoryKind, m.srcKind, memoryKindName(static_cast<MemoryKind>(m.srcKind)));
  s.label(Arg::DstKind, Label::MemoryKind, m.dstKind, memoryKindName(static_cast<MemoryKind>(m.dstKind)));
  s.b(Arg::Async, (m.flags & kCopyFlagAsync) != 0);
  if (m.end > m.start)  // bytes per ns is GB/s
    s.real(Arg::BandwidthGBps, static_cast<double>(m.bytes) / static_cast<double>(m.end - m.start), 6);
  s.u(Arg::Correlation, m.correlationId);
  if (copyKind == CopyKind::PtoP) {
    s.u(Arg::SrcDevice, m.srcDeviceId);
    s.u(Arg::DstDevice, m.dstDeviceId);
  }
  graphNodeArgs(m.graphId, m.graphNodeId, s);
  s.externalIds(m.correlationId);
}

CUPTITRACE_ARGS_FN memsetArgs(const MemsetRecord& m, Sink& s) {
  gpuWhereArgs(m.deviceId, m.streamId, s);
  s.u(Arg::Bytes, m.bytes);
  s.u(Arg::Value, m.value);
  s.label(Arg::MemoryKind, Label::MemoryKind, m.memoryKind, memoryKindName(static_cast<MemoryKind>(m.memoryKind)));
  s.b(Arg::Async, (m.flags & kCopyFlagAsync) != 0);
  s.u(Arg::Correlation, m.correlationId);
  graphNodeArgs(m.graphId, m.graphNodeId, s);
  s.externalIds(m.correlationId);
}

// A whole graph launch (CUPTITRACE_GRAPHS=graph).
CUPTITRACE_ARGS_FN graphLaunchArgs(const GraphRecord& g, Sink& s) {
  s.u(Arg::GraphId, g.graphId);
  s.u(Arg::Correlation, g.correlationId);
  if (g.endDeviceId != g.deviceId) s.u(Arg::EndDevice, g.endDeviceId);
  s.externalIds(g.correlationId);
}

// A runtime or driver call; a C library call (osrt) has only its errno.
CUPTITRACE_ARGS_FN apiArgs(const ApiRecord& r, Sink& s) {
  if (isOsrtCall(r)) {
    if (r.returnValue != 0) s.u(Arg::Errno, r.returnValue);
    return;
  }
  s.u(Arg::Correlation, r.correlationId);
  if (r.returnValue != 0) s.u(Arg::ReturnValue, r.returnValue);
  s.externalIds(r.correlationId);
}

CUPTITRACE_ARGS_FN syncArgs(const SyncRecord& r, Sink& s) {
  s.u(Arg::Correlation, r.correlationId);
  if (r.streamId != kNotApplicable) s.u(Arg::Stream, r.streamId);
  if (r.eventId != kNotApplicable) s.u(Arg::Event, r.eventId);
}

CUPTITRACE_ARGS_FN overheadArgs(const OverheadRecord& r, Sink& s) {
  if (r.threadId != 0) s.u(Arg::Thread, r.threadId);
  if (r.deviceId != kNotApplicable) s.u(Arg::Device, r.deviceId);
}

// An NVTX range or mark: domain, category, color, payload (as the type NVTX
// was given), then what its type adds: a push/pop range's depth (`withDepth`:
// not on marks), a start/end range's id and threads.
CUPTITRACE_ARGS_FN nvtxArgs(const NvtxRecord& r, bool withDepth, Sink& s) {
  if (r.domain != kNoString) s.string(Arg::Domain, r.domain);
  s.u(Arg::NvtxCategory, r.category);
  if (r.flags & kNvtxHasColor) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    char color[9] = {'#'};
    for (int i = 0; i < 8; ++i) color[1 + i] = kHex[(r.color >> (28 - 4 * i)) & 0xf];
    s.text(Arg::Color, std::string_view(color, sizeof color));
  }
  // 32-bit payloads sit in the low half, where NVTX's payload union puts them (little-endian).
  const auto low = static_cast<uint32_t>(r.payload);
  switch (static_cast<NvtxPayload>(r.payloadType)) {
    case NvtxPayload::U64: s.u(Arg::Payload, r.payload); break;
    case NvtxPayload::I64: s.i(Arg::Payload, static_cast<int64_t>(r.payload)); break;
    case NvtxPayload::U32: s.u(Arg::Payload, low); break;
    case NvtxPayload::I32: s.i(Arg::Payload, static_cast<int32_t>(low)); break;
    case NvtxPayload::Double: {
      double d;
      std::memcpy(&d, &r.payload, sizeof d);
      s.real(Arg::Payload, d, 0);
      break;
    }
    case NvtxPayload::Float: {
      float f;
      std::memcpy(&f, &low, sizeof f);
      s.single(Arg::Payload, f);
      break;
    }
    case NvtxPayload::None: break;
  }
  if (r.flags & kNvtxOpen) s.b(Arg::Open, true);
  if (r.type == static_cast<uint8_t>(NvtxType::StartEnd)) {
    s.u(Arg::RangeId, r.id);
    s.u(Arg::Thread, r.threadId);
    if (r.endThreadId != 0 && r.endThreadId != r.threadId) s.u(Arg::EndThread, r.endThreadId);
  } else if (withDepth) {
    s.u(Arg::Depth, r.depth);
  }
}

// What PyTorch wrote into an operator's range (torch_ops.h), under the
// PyTorch profiler's names: its op_id as "External id", its sequence number,
// its inputs' sizes; after the range's own arguments (nvtxArgs).
CUPTITRACE_ARGS_FN torchOpArgs(const TorchRange& t, Sink& s) {
  if (t.opId >= 0) s.i(Arg::ExternalId, t.opId);
  if (t.seq >= 0) s.i(Arg::SequenceNumber, t.seq);
  if (!t.shapes.empty()) s.json(Arg::InputDims, t.shapes);
}

// An OpenACC event: every field CUPTI gives but what the slice already says
// (times, process, thread); the data fields on data events, the launch fields
// on launches; lines and names only when known.
CUPTITRACE_ARGS_FN openAccArgs(const OpenAccRecord& r, Sink& s) {
  s.text(Arg::AccEvent, openAccEventName(r.eventKind));
  if (const char* c = openAccConstructName(r.parentConstruct); *c != '\0') s.text(Arg::AccConstruct, c);
  if (r.srcFile != kNoString) s.string(Arg::AccSrcFile, r.srcFile);
  if (r.lineNo != 0) s.u(Arg::AccLine, r.lineNo);
  if (r.endLineNo != 0) s.u(Arg::AccEndLine, r.endLineNo);
  if (r.funcName != kNoString) s.string(Arg::AccFunction, r.funcName);
  if (r.funcLineNo != 0) s.u(Arg::AccFunctionLine, r.funcLineNo);
  if (r.funcEndLineNo != 0) s.u(Arg::AccFunctionEndLine, r.funcEndLineNo);
  if (r.type == static_cast<uint8_t>(OpenAccType::Data)) {
    if (r.varName != kNoString) s.string(Arg::AccVariable, r.varName);
    s.u(Arg::Bytes, r.bytes);
    if (r.hostPtr != 0) s.u(Arg::AccHostPtr, r.hostPtr);
    if (r.devicePtr != 0) s.u(Arg::AccDevicePtr, r.devicePtr);
  } else if (r.type == static_cast<uint8_t>(OpenAccType::Launch)) {
    if (r.kernelName != kNoString) s.string(Arg::AccKernel, r.kernelName);
    s.u(Arg::AccGangs, r.numGangs);
    s.u(Arg::AccWorkers, r.numWorkers);
    s.u(Arg::AccVectorLength, r.vectorLength);
  }
  s.u(Arg::Async, r.async);
  s.u(Arg::AccAsyncMap, r.asyncMap);
  if (r.implicit) s.u(Arg::AccImplicit, 1);
  if (r.externalId != 0) s.u(Arg::AccOpenAccId, r.externalId);
  s.u(Arg::Device, r.cuDeviceId);
  s.u(Arg::Context, r.cuContextId);
  s.u(Arg::Stream, r.cuStreamId);
  s.u(Arg::AccThread, r.threadId);
  s.u(Arg::AccDeviceType, r.deviceType);
  s.u(Arg::AccDeviceNumber, r.deviceNumber);
  s.u(Arg::AccVersion, r.version);
}

}  // namespace cuptitrace
