// Decoding of CUPTI's memory records: allocations and releases, memory pools,
// and unified memory counters, each into its own record with CUPTI's values
// checked against the ranges ours can name.
#include "collectors/cupti_versions.h"
#include "collectors/decoder.h"

namespace cuptitrace {

void Decoder::decodeMemory(const CUpti_Activity* record) {
  const auto& a = *reinterpret_cast<const cupti::MemoryActivity*>(record);
  MemoryRecord r{};
  switch (a.memoryOperationType) {
    case CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION:
      r.operation = static_cast<uint8_t>(MemoryOp::Allocation);
      break;
    case CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE:
      r.operation = static_cast<uint8_t>(MemoryOp::Release);
      break;
    default:
      ++unknown_;  // neither an allocation nor a release: nothing to count it as
      return;
  }
  r.timestamp = a.timestamp;
  r.address = a.address;
  r.bytes = a.bytes;
  r.correlationId = a.correlationId;
  r.deviceId = a.deviceId;
  r.contextId = a.contextId;
  r.streamId = a.streamId;
  r.memoryKind = a.memoryKind <= CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC
                     ? static_cast<uint8_t>(a.memoryKind)
                     : static_cast<uint8_t>(MemoryKind::Unknown);
  r.isAsync = a.isAsync != 0 ? 1 : 0;
  const auto poolType = a.memoryPoolConfig.memoryPoolType;
  if (poolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL || poolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_IMPORTED) {
    r.poolType = static_cast<uint8_t>(poolType);
    r.poolAddress = a.memoryPoolConfig.address;
  }
  trace_.store.add(r);
}

void Decoder::decodeMemoryPool(const CUpti_Activity* record) {
  const auto& a = *reinterpret_cast<const cupti::MemoryPoolActivity*>(record);
  MemoryPoolRecord r{};
  switch (a.memoryPoolOperationType) {
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED:
      r.operation = static_cast<uint8_t>(PoolOp::Created);
      break;
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED:
      r.operation = static_cast<uint8_t>(PoolOp::Destroyed);
      break;
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED:
      r.operation = static_cast<uint8_t>(PoolOp::Trimmed);
      break;
    default:
      ++unknown_;
      return;
  }
  r.timestamp = a.timestamp;
  r.address = a.address;
  r.releaseThreshold = a.releaseThreshold;
  r.size = a.size;
  r.utilizedSize = a.utilizedSize;
  r.minBytesToKeep = a.minBytesToKeep;
  r.correlationId = a.correlationId;
  r.deviceId = a.deviceId;
  r.poolType = a.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL ||
                       a.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_IMPORTED
                   ? static_cast<uint8_t>(a.memoryPoolType)
                   : static_cast<uint8_t>(PoolType::None);
  r.isManaged = a.isManagedPool != 0 ? 1 : 0;
  trace_.store.add(r);
}

void Decoder::decodeUvm(const CUpti_Activity* record) {
  const auto& a = *reinterpret_cast<const cupti::UvmActivity*>(record);
  UvmRecord r{};
  r.kind = a.counterKind > CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_UNKNOWN &&
                   a.counterKind < CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_COUNT
               ? static_cast<uint8_t>(a.counterKind)
               : static_cast<uint8_t>(UvmKind::Unknown);
  r.start = a.start;
  r.address = a.address;
  r.value = a.value;
  r.srcId = a.srcId;
  r.dstId = a.dstId;
  switch (static_cast<UvmKind>(r.kind)) {
    case UvmKind::BytesHtoD:
    case UvmKind::BytesDtoD:
      r.end = a.end;
      r.deviceId = a.dstId;
      r.cause = static_cast<uint8_t>(a.flags);
      break;
    case UvmKind::BytesDtoH:
      r.end = a.end;
      r.deviceId = a.srcId;
      r.cause = static_cast<uint8_t>(a.flags);
      break;
    case UvmKind::GpuPageFault:
      r.end = a.end;
      r.deviceId = a.srcId;
      r.accessType = static_cast<uint8_t>(a.flags);
      break;
    case UvmKind::Throttling:
      r.end = a.end;
      r.deviceId = a.srcId;
      break;
    case UvmKind::RemoteMap:
      // CUPTI's end is not meaningful for these: they are instants.
      r.end = a.start;
      r.deviceId = a.dstId;
      r.cause = static_cast<uint8_t>(a.flags);
      break;
    case UvmKind::CpuPageFault:
    case UvmKind::Thrashing:
    case UvmKind::Unknown:
      // Instants; a CPU page fault belongs to no GPU (its srcId is not valid either).
      r.end = a.start;
      r.deviceId = r.kind == static_cast<uint8_t>(UvmKind::CpuPageFault) ? kUvmNoDevice : a.srcId;
      break;
  }
  trace_.store.add(r);
}

}  // namespace cuptitrace
