// Memory, unified memory and graph records for tests, one call each.
#pragma once

#include "core/trace.h"

namespace cuptitrace::testing {

inline void addMemory(Trace& t, MemoryOp op, uint64_t ts, uint64_t address, uint64_t bytes,
                      uint32_t device, MemoryKind kind, uint32_t correlation) {
  MemoryRecord r{};
  r.timestamp = ts;
  r.address = address;
  r.bytes = bytes;
  r.correlationId = correlation;
  r.deviceId = device;
  r.contextId = 1;
  r.streamId = 0xffffffffu;
  r.operation = static_cast<uint8_t>(op);
  r.memoryKind = static_cast<uint8_t>(kind);
  t.store.add(r);
}
inline void addAllocation(Trace& t, uint64_t ts, uint64_t address, uint64_t bytes, uint32_t device,
                          MemoryKind kind, uint32_t correlation) {
  addMemory(t, MemoryOp::Allocation, ts, address, bytes, device, kind, correlation);
}
inline void addFree(Trace& t, uint64_t ts, uint64_t address, uint64_t bytes, uint32_t device,
                    MemoryKind kind, uint32_t correlation) {
  addMemory(t, MemoryOp::Release, ts, address, bytes, device, kind, correlation);
}

inline void addUvm(Trace& t, UvmKind kind, uint64_t start, uint64_t end, uint64_t value,
                   uint32_t device) {
  UvmRecord r{};
  r.start = start;
  r.end = end;
  r.value = value;
  r.kind = static_cast<uint8_t>(kind);
  r.deviceId = device;
  r.address = 0xa000;
  r.srcId = kind == UvmKind::BytesDtoH ? device : 0;
  r.dstId = kind == UvmKind::BytesHtoD ? device : 0;
  t.store.add(r);
}

inline void addApi(Trace& t, uint64_t start, uint64_t end, const char* name, uint32_t correlation,
                   ApiDomain domain = ApiDomain::Runtime) {
  ApiRecord r{};
  r.start = start;
  r.end = end;
  r.name = t.strings.intern(name);
  r.correlationId = correlation;
  r.threadId = t.meta.pid;
  r.domain = static_cast<uint8_t>(domain);
  t.store.add(r);
}

inline void addGraphLaunch(Trace& t, uint64_t start, uint64_t end, uint32_t graph,
                           uint32_t correlation, uint32_t stream = 13) {
  GraphRecord r{};
  r.start = start;
  r.end = end;
  r.graphId = graph;
  r.correlationId = correlation;
  r.deviceId = 0;
  r.contextId = 1;
  r.streamId = stream;
  t.store.add(r);
}

inline void addGraphKernel(Trace& t, uint64_t start, uint64_t end, uint32_t graph, uint64_t node,
                           uint32_t correlation, uint32_t stream = 13) {
  KernelRecord k{};
  k.start = start;
  k.end = end;
  k.name = t.strings.intern("_Z4stepPfi");
  k.correlationId = correlation;
  k.contextId = 1;
  k.streamId = stream;
  k.graphId = graph;
  k.graphNodeId = node;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = 128;
  k.blockY = k.blockZ = 1;
  t.store.add(k);
}

}  // namespace cuptitrace::testing
