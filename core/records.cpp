#include "core/records.h"

namespace cuptitrace {

const char* recordKindName(RecordKind kind) {
  switch (kind) {
    case RecordKind::Kernel: return "kernel";
    case RecordKind::Memcpy: return "memcpy";
    case RecordKind::Memset: return "memset";
    case RecordKind::Api: return "api";
    case RecordKind::Nvtx: return "nvtx";
    case RecordKind::Sync: return "sync";
    case RecordKind::Overhead: return "overhead";
    case RecordKind::Memory: return "memory";
    case RecordKind::MemoryPool: return "memory_pool";
    case RecordKind::Uvm: return "uvm";
    case RecordKind::Graph: return "graph";
    case RecordKind::ExternalId: return "external_id";
    case RecordKind::OpenAcc: return "openacc";
    case RecordKind::GpuMetric: return "gpu_metric";
    case RecordKind::Count: break;
  }
  return "unknown";
}

const char* memoryOpName(uint8_t op) {
  return op == static_cast<uint8_t>(MemoryOp::Release) ? "free" : "alloc";
}

const char* poolOpName(uint8_t op) {
  switch (static_cast<PoolOp>(op)) {
    case PoolOp::Created: return "created";
    case PoolOp::Destroyed: return "destroyed";
    case PoolOp::Trimmed: return "trimmed";
  }
  return "unknown";
}

const char* poolTypeName(uint8_t type) {
  switch (static_cast<PoolType>(type)) {
    case PoolType::Local: return "local";
    case PoolType::Imported: return "imported";
    case PoolType::None: break;
  }
  return "";
}

const char* uvmKindName(uint8_t kind) {
  switch (static_cast<UvmKind>(kind)) {
    case UvmKind::BytesHtoD: return "HtoD";
    case UvmKind::BytesDtoH: return "DtoH";
    case UvmKind::CpuPageFault: return "CPU page fault";
    case UvmKind::GpuPageFault: return "GPU page fault";
    case UvmKind::Thrashing: return "Thrashing";
    case UvmKind::Throttling: return "Throttling";
    case UvmKind::RemoteMap: return "Remote map";
    case UvmKind::BytesDtoD: return "DtoD";
    case UvmKind::Unknown: break;
  }
  return "Unknown";
}

const char* uvmCauseName(uint8_t cause) {
  switch (cause) {
    case 1: return "user";
    case 2: return "coherence";
    case 3: return "prefetch";
    case 4: return "eviction";
    case 5: return "access counters";
    default: return "";
  }
}

const char* uvmAccessName(uint8_t access) {
  switch (access) {
    case 1: return "read";
    case 2: return "write";
    case 3: return "atomic";
    case 4: return "prefetch";
    default: return "";
  }
}

const char* copyKindName(CopyKind kind) {
  switch (kind) {
    case CopyKind::HtoD: return "HtoD";
    case CopyKind::DtoH: return "DtoH";
    case CopyKind::HtoA: return "HtoA";
    case CopyKind::AtoH: return "AtoH";
    case CopyKind::AtoA: return "AtoA";
    case CopyKind::AtoD: return "AtoD";
    case CopyKind::DtoA: return "DtoA";
    case CopyKind::DtoD: return "DtoD";
    case CopyKind::HtoH: return "HtoH";
    case CopyKind::PtoP: return "PtoP";
    case CopyKind::Unknown: break;
  }
  return "Unknown";
}

const char* memoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::Pageable: return "Pageable";
    case MemoryKind::Pinned: return "Pinned";
    case MemoryKind::Device: return "Device";
    case MemoryKind::Array: return "Array";
    case MemoryKind::Managed: return "Managed";
    case MemoryKind::DeviceStatic: return "DeviceStatic";
    case MemoryKind::ManagedStatic: return "ManagedStatic";
    case MemoryKind::Unknown: break;
  }
  return "Unknown";
}

const char* nvtxTypeName(NvtxType type) {
  switch (type) {
    case NvtxType::PushPop: return "PushPop";
    case NvtxType::StartEnd: return "StartEnd";
    case NvtxType::Mark: return "Mark";
  }
  return "Unknown";
}

const char* syncTypeName(SyncType type) {
  switch (type) {
    case SyncType::EventSynchronize: return "EventSynchronize";
    case SyncType::StreamWaitEvent: return "StreamWaitEvent";
    case SyncType::StreamSynchronize: return "StreamSynchronize";
    case SyncType::ContextSynchronize: return "ContextSynchronize";
    case SyncType::Unknown: break;
  }
  return "Unknown";
}

const char* launchTypeName(uint8_t type) {
  switch (static_cast<KernelLaunchType>(type)) {
    case KernelLaunchType::Regular:
      return "Regular";
    case KernelLaunchType::CooperativeSingle:
      return "CooperativeSingle";
    case KernelLaunchType::CooperativeMulti:
      return "CooperativeMulti";
    case KernelLaunchType::CblProgrammatic:
      return "CblProgrammatic";
  }
  return "Unknown";
}

const char* apiDomainName(uint8_t domain) {
  switch (static_cast<ApiDomain>(domain)) {
    case ApiDomain::Runtime:
      return "runtime";
    case ApiDomain::Driver:
      return "driver";
    case ApiDomain::Osrt:
      return "osrt";
  }
  return "unknown";
}

}  // namespace cuptitrace
