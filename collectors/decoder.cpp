#include "collectors/decoder.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "collectors/cupti_versions.h"

namespace cuptitrace {
namespace {

// The decoder must never read past a record, so every cast goes through here.
template <typename T>
const T& as(const CUpti_Activity* record) {
  return *reinterpret_cast<const T*>(record);
}

std::string uuidText(const CUuuid& uuid) {
  char text[64];
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  std::snprintf(text, sizeof(text),
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

const char* overheadName(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER: return "Driver compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH: return "CUPTI buffer flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION: return "CUPTI instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE: return "CUPTI resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING: return "Module loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING: return "Lazy function loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL: return "Command buffer full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST: return "Activity buffer request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT: return "UVM activity init";
    default: return "CUPTI overhead";
  }
}

// The fields both memcpy record versions (plain and peer-to-peer) share.
template <typename A>
MemcpyRecord copyRecord(const A& a) {
  MemcpyRecord r{};
  r.start = a.start;
  r.end = a.end;
  r.bytes = a.bytes;
  r.graphNodeId = a.graphNodeId;
  r.correlationId = a.correlationId;
  r.deviceId = a.deviceId;
  r.contextId = a.contextId;
  r.streamId = a.streamId;
  r.graphId = a.graphId;
  r.copyKind = a.copyKind;
  r.srcKind = a.srcKind;
  r.dstKind = a.dstKind;
  r.flags = (a.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? kCopyFlagAsync : 0;
  return r;
}

}  // namespace

std::string apiCallName(ApiDomain domain, const char* cuptiName) {
  if (cuptiName == nullptr) return {};
  std::string name(cuptiName);
  if (domain != ApiDomain::Runtime) return name;
  // Strip a trailing "_v<digits>" that CUPTI appends to runtime call names.
  const auto pos = name.rfind("_v");
  if (pos != std::string::npos && pos + 2 < name.size() &&
      name.find_first_not_of("0123456789", pos + 2) == std::string::npos)
    name.resize(pos);
  return name;
}

StringId Decoder::internPointer(const char* text) {
  if (text == nullptr) return kNoString;
  auto it = pointerIds_.find(text);
  if (it != pointerIds_.end()) return it->second;
  const StringId id = trace_.strings.intern(text);
  pointerIds_.emplace(text, id);
  return id;
}

StringId Decoder::apiName(ApiDomain domain, uint32_t cbid) {
  const uint64_t key = (static_cast<uint64_t>(domain) << 32) | cbid;
  auto it = apiNames_.find(key);
  if (it != apiNames_.end()) return it->second;
  const char* cuptiName = nullptr;
  const auto cbDomain =
      domain == ApiDomain::Runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  std::string name;
  if (cuptiGetCallbackName(cbDomain, cbid, &cuptiName) == CUPTI_SUCCESS && cuptiName != nullptr)
    name = apiCallName(domain, cuptiName);
  else
    name = (domain == ApiDomain::Runtime ? "runtime_api_" : "driver_api_") + std::to_string(cbid);
  const StringId id = trace_.strings.intern(name);
  apiNames_.emplace(key, id);
  return id;
}

void Decoder::decodeBuffer(uint8_t* buffer, size_t validSize) {
  CUpti_Activity* record = nullptr;
  while (true) {
    const CUptiResult status = cuptiActivityGetNextRecord(buffer, validSize, &record);
    if (status == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
    if (status != CUPTI_SUCCESS) {
      ++bufferErrors_;  // the rest of this buffer cannot be walked
      break;
    }
    decode(record);
  }
}

void Decoder::decode(const CUpti_Activity* record) {
  if (record == nullptr) return;
  // Every cast below is to a struct of CUPTI 13.0: never read another release's records through them.
  if (layout_ != RecordLayout::Cupti130) {
    ++wrongLayout_;
    return;
  }
  ++decoded_;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto& a = as<cupti::KernelActivity>(record);
      const StringId name = internPointer(a.name);
      if (filter_.active() && !keepKernel(name)) {
        ++filteredKernels_;
        filteredCorrelations_.push_back(a.correlationId);
        return;
      }
      KernelRecord r{};
      r.start = a.start;
      r.end = a.end;
      r.graphNodeId = a.graphNodeId;
      r.name = name;
      r.correlationId = a.correlationId;
      r.deviceId = a.deviceId;
      r.contextId = a.contextId;
      r.streamId = a.streamId;
      r.graphId = a.graphId;
      r.gridX = a.gridX;
      r.gridY = a.gridY;
      r.gridZ = a.gridZ;
      r.blockX = static_cast<uint16_t>(a.blockX);
      r.blockY = static_cast<uint16_t>(a.blockY);
      r.blockZ = static_cast<uint16_t>(a.blockZ);
      r.staticSharedMemory = a.staticSharedMemory;
      r.dynamicSharedMemory = a.dynamicSharedMemory;
      r.registersPerThread = a.registersPerThread;
      r.launchType = a.launchType;
      r.isDeviceLaunched = a.isDeviceLaunched;
      trace_.store.add(r);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& a = as<cupti::MemcpyActivity>(record);
      MemcpyRecord r = copyRecord(a);
      r.srcDeviceId = a.deviceId;
      r.dstDeviceId = a.deviceId;
      trace_.store.add(r);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto& a = as<cupti::MemcpyPtoPActivity>(record);
      MemcpyRecord r = copyRecord(a);
      r.srcDeviceId = a.srcDeviceId;
      r.dstDeviceId = a.dstDeviceId;
      trace_.store.add(r);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& a = as<cupti::MemsetActivity>(record);
      MemsetRecord r{};
      r.start = a.start;
      r.end = a.end;
      r.bytes = a.bytes;
      r.graphNodeId = a.graphNodeId;
      r.correlationId = a.correlationId;
      r.deviceId = a.deviceId;
      r.contextId = a.contextId;
      r.streamId = a.streamId;
      r.graphId = a.graphId;
      r.value = a.value;
      r.memoryKind = static_cast<uint8_t>(a.memoryKind);
      r.flags = (a.flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) ? kCopyFlagAsync : 0;
      trace_.store.add(r);
      return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto& a = as<cupti::ApiActivity>(record);
      const auto domain =
          record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? ApiDomain::Runtime : ApiDomain::Driver;
      ApiRecord r{};
      r.start = a.start;
      r.end = a.end;
      r.name = apiName(domain, a.cbid);
      r.correlationId = a.correlationId;
      r.threadId = a.threadId;
      r.cbid = a.cbid;
      r.returnValue = a.returnValue;
      r.domain = static_cast<uint8_t>(domain);
      trace_.store.add(r);
      return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto& a = as<cupti::SyncActivity>(record);
      SyncRecord r{};
      r.start = a.start;
      r.end = a.end;
      r.correlationId = a.correlationId;
      r.contextId = a.contextId;
      r.streamId = a.streamId;
      r.eventId = a.cudaEventId;
      r.type = a.type <= CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE
                   ? static_cast<uint8_t>(a.type)
                   : static_cast<uint8_t>(SyncType::Unknown);
      trace_.store.add(r);
      return;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto& a = as<cupti::OverheadActivity>(record);
      OverheadRecord r{};
      r.start = a.start;
      r.end = a.end;
      r.name = trace_.strings.intern(overheadName(a.overheadKind));
      r.deviceId = 0xffffffffu;
      if (a.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || a.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS)
        r.threadId = a.objectId.pt.threadId;
      else if (a.objectKind == CUPTI_ACTIVITY_OBJECT_DEVICE)
        r.deviceId = a.objectId.dcs.deviceId;
      trace_.store.add(r);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      decodeMemory(record);
      return;
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
      decodeMemoryPool(record);
      return;
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
      decodeUvm(record);
      return;
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
      decodeGraph(record);
      return;
    case CUPTI_ACTIVITY_KIND_DEVICE:
      decodeDevice(record);
      return;
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      decodeContext(record);
      return;
    case CUPTI_ACTIVITY_KIND_NAME:
      decodeName(record);
      return;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto& a = as<cupti::ExternalCorrelationActivity>(record);
      ExternalIdRecord r{};
      r.externalId = a.externalId;
      r.correlationId = a.correlationId;
      r.externalKind = a.externalKind <= CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2
                           ? static_cast<uint8_t>(a.externalKind)
                           : static_cast<uint8_t>(ExternalKind::Unknown);
      trace_.store.add(r);
      return;
    }
    case CUPTI_ACTIVITY_KIND_OPENACC_DATA:
    case CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH:
    case CUPTI_ACTIVITY_KIND_OPENACC_OTHER:
      decodeOpenAcc(record);
      return;
    default:
      ++unknown_;
      return;
  }
}

void Decoder::decodeGraph(const CUpti_Activity* record) {
  const auto& a = as<cupti::GraphActivity>(record);
  GraphRecord r{};
  r.start = a.start;
  r.end = a.end;
  r.graphId = a.graphId;
  r.correlationId = a.correlationId;
  r.deviceId = a.deviceId;
  r.contextId = a.contextId;
  r.streamId = a.streamId;
  r.endDeviceId = a.endDeviceId;
  // INT_MAX: the graph started on the host (a host node first); its GPU is where it ended.
  if (a.deviceId == 0x7fffffffu) {
    r.deviceId = a.endDeviceId;
    r.contextId = a.endContextId;
  }
  trace_.store.add(r);
}

void Decoder::decodeDevice(const CUpti_Activity* record) {
  const auto& a = as<cupti::DeviceActivity>(record);
  DeviceInfo d;
  d.id = a.id;
  d.name = a.name != nullptr ? a.name : "";
  d.computeMajor = a.computeCapabilityMajor;
  d.computeMinor = a.computeCapabilityMinor;
  d.multiprocessors = a.numMultiprocessors;
  d.globalMemoryBytes = a.globalMemorySize;
  d.coreClockKHz = a.coreClockRate;
  d.memoryBandwidthKBps = a.globalMemoryBandwidth;
  d.l2CacheBytes = a.l2CacheSize;
  d.copyEngines = a.numMemcpyEngines;
  d.threadsPerWarp = a.numThreadsPerWarp;
  d.maxWarpsPerSm = a.maxWarpsPerMultiprocessor;
  d.maxBlocksPerSm = a.maxBlocksPerMultiprocessor;
  d.registersPerSm = a.maxRegistersPerMultiprocessor;
  d.registersPerBlock = a.maxRegistersPerBlock;
  d.sharedMemoryPerSm = a.maxSharedMemoryPerMultiprocessor;
  d.sharedMemoryPerBlock = a.maxSharedMemoryPerBlock;
  d.maxThreadsPerBlock = a.maxThreadsPerBlock;
  d.uuid = uuidText(a.uuid);
  for (auto& existing : trace_.devices) {
    if (existing.id == d.id) {
      existing = d;
      return;
    }
  }
  trace_.devices.push_back(std::move(d));
}

void Decoder::decodeContext(const CUpti_Activity* record) {
  const auto& a = as<cupti::ContextActivity>(record);
  for (auto& c : trace_.contexts) {
    if (c.contextId == a.contextId) {
      c.deviceId = a.deviceId;
      c.nullStreamId = a.nullStreamId;
      return;
    }
  }
  trace_.contexts.push_back({a.contextId, a.deviceId, a.nullStreamId});
}

void Decoder::decodeName(const CUpti_Activity* record) {
  const auto& a = as<cupti::NameActivity>(record);
  if (a.name == nullptr) return;
  switch (a.objectKind) {
    case CUPTI_ACTIVITY_OBJECT_THREAD: trace_.threadNames[a.objectId.pt.threadId] = a.name; break;
    case CUPTI_ACTIVITY_OBJECT_DEVICE: trace_.deviceNames[a.objectId.dcs.deviceId] = a.name; break;
    case CUPTI_ACTIVITY_OBJECT_STREAM: trace_.streamNames[a.objectId.dcs.streamId] = a.name; break;
    case CUPTI_ACTIVITY_OBJECT_CONTEXT: trace_.contextNames[a.objectId.dcs.contextId] = a.name; break;
    default: break;
  }
}

bool Decoder::keepKernel(StringId name) {
  if (name >= verdicts_.size()) verdicts_.resize(name + 1, 0);
  // The regex runs once per distinct name.
  if (verdicts_[name] == 0) verdicts_[name] = filter_.keep(trace_.strings.get(name)) ? 1 : 2;
  return verdicts_[name] == 1;
}

void Decoder::removeFilteredLaunches() {
  if (filteredCorrelations_.empty()) return;
  auto& ids = filteredCorrelations_;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  // GPU work that was kept under one of these ids keeps its launch call.
  std::vector<uint8_t> stillLaunches(ids.size(), 0);
  auto markKept = [&](const auto& records) {
    records.forEach([&](const auto& r) {
      const auto it = std::lower_bound(ids.begin(), ids.end(), r.correlationId);
      if (it != ids.end() && *it == r.correlationId) stillLaunches[static_cast<size_t>(it - ids.begin())] = 1;
    });
  };
  markKept(trace_.store.records<KernelRecord>());
  markKept(trace_.store.records<MemcpyRecord>());
  markKept(trace_.store.records<MemsetRecord>());
  size_t out = 0;
  for (size_t i = 0; i < ids.size(); ++i)
    if (!stillLaunches[i]) ids[out++] = ids[i];
  ids.resize(out);
  const size_t before = trace_.store.records<ApiRecord>().size();
  if (!ids.empty()) {
    trace_.store.retain<ApiRecord>(
        [&](const ApiRecord& r) { return !std::binary_search(ids.begin(), ids.end(), r.correlationId); });
  }
  filteredLaunches_ += before - trace_.store.records<ApiRecord>().size();
  std::vector<uint32_t>().swap(filteredCorrelations_);
}

void Decoder::publishCounters() const {
  if (filter_.active()) {
    trace_.counters["filtered.kernels"] = filteredKernels_;
    trace_.counters["filtered.launch_calls"] = filteredLaunches_;
  }
  trace_.counters["cupti_records_decoded"] = decoded_;
  trace_.counters["unknown_records"] = unknown_;
  trace_.counters["dropped.unreadable_buffers"] = bufferErrors_;
  if (wrongLayout_ != 0) trace_.counters["dropped.unknown_cupti_layout"] = wrongLayout_;
}

}  // namespace cuptitrace
