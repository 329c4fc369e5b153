#include "exporters/sqlite/sqlite_schema.h"

namespace cuptitrace {

// Column lists follow Nsight Systems' "SQLite Schema Reference", in its order,
// with every documented column of each table we write (the ones we cannot
// know stay NULL), so queries naming any of them run. Its NOT NULL marks are
// left out: a value we did not record is NULL here, never a made-up 0.
const std::vector<SqliteTableSpec>& sqliteTables() {
  static const std::vector<SqliteTableSpec> tables = {
      {"StringIds", "id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL"},
      {"ThreadNames", "nameId INTEGER, priority INTEGER, globalTid INTEGER"},
      {"PROCESSES", "globalPid INTEGER, pid INTEGER, name TEXT"},
      {"META_DATA_CAPTURE", "name TEXT NOT NULL, value TEXT"},
      {"META_DATA_EXPORT", "name TEXT NOT NULL, value TEXT"},
      {"TARGET_INFO_SESSION_START_TIME",
       "utcEpochNs INTEGER, utcTime TEXT, localTime TEXT, systemClockNs INTEGER, sessionStartCntVctNs INTEGER"},
      {"ANALYSIS_DETAILS", "globalVid INTEGER, duration INTEGER, startTime INTEGER, stopTime INTEGER"},
      {"TARGET_INFO_GPU",
       "vmId INTEGER, id INTEGER, name TEXT, busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, "
       "totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, "
       "uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT, ctrlDevPath TEXT, "
       "revision INTEGER, nodeMask INTEGER, constantMemory INTEGER, maxIPC INTEGER, "
       "maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, "
       "maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, asyncEngines INTEGER, "
       "maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, "
       "maxBlockDimY INTEGER, maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, "
       "maxGridDimZ INTEGER, computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER, "
       "numaNodeId INTEGER"},
      {"TARGET_INFO_CUDA_DEVICE",
       "gpuId INTEGER, cudaId INTEGER, pid INTEGER, uuid TEXT, numMultiprocessors INTEGER"},
      {"TARGET_INFO_CUDA_CONTEXT_INFO",
       "nullStreamId INTEGER, hwId INTEGER, vmId INTEGER, processId INTEGER, deviceId INTEGER, "
       "contextId INTEGER, parentContextId INTEGER, isGreenContext INTEGER, numMultiprocessors INTEGER, "
       "numTpcs INTEGER, tpcMask TEXT, workqueueResourceId INTEGER, workqueueConcurrencyLimit INTEGER, "
       "workqueueSharingScope INTEGER, workqueueChannelCount INTEGER, workqueueChannelIds TEXT"},
      {"TARGET_INFO_NVTX_CUDA_DEVICE", "name TEXT, hwId INTEGER, vmId INTEGER, deviceId INTEGER"},
      {"TARGET_INFO_NVTX_CUDA_CONTEXT",
       "name TEXT, hwId INTEGER, vmId INTEGER, processId INTEGER, deviceId INTEGER, contextId INTEGER"},
      {"TARGET_INFO_NVTX_CUDA_STREAM",
       "name TEXT, hwId INTEGER, vmId INTEGER, processId INTEGER, deviceId INTEGER, contextId INTEGER, "
       "streamId INTEGER"},
      {"CUPTI_ACTIVITY_KIND_KERNEL",
       "start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, greenContextId INTEGER, "
       "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, "
       "shortName INTEGER, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, "
       "registersPerThread INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, "
       "blockY INTEGER, blockZ INTEGER, staticSharedMemory INTEGER, dynamicSharedMemory INTEGER, "
       "localMemoryPerThread INTEGER, localMemoryTotal INTEGER, gridId INTEGER, "
       "sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER, "
       "qmdBulkReleaseDone INTEGER, qmdPreexitDone INTEGER, qmdLastCtaDone INTEGER, graphId INTEGER, "
       "clusterX INTEGER, clusterY INTEGER, clusterZ INTEGER, clusterSchedulingPolicy INTEGER, "
       "maxPotentialClusterSize INTEGER, maxActiveClusters INTEGER, "
       "sharedMemoryRequestedPercentage INTEGER, tensorSizeMinusOneElements TEXT"},
      {"CUPTI_ACTIVITY_KIND_MEMCPY",
       "start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, greenContextId INTEGER, "
       "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, "
       "deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, "
       "srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, "
       "graphNodeId INTEGER, virtualAddress INTEGER, copyCount INTEGER"},
      {"CUPTI_ACTIVITY_KIND_MEMSET",
       "start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, greenContextId INTEGER, "
       "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, value INTEGER, bytes INTEGER, "
       "graphNodeId INTEGER, memKind INTEGER"},
      {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
       "start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, greenContextId INTEGER, "
       "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, deprecatedSyncType INTEGER, "
       "syncType INTEGER, eventId INTEGER, eventSyncId INTEGER"},
      {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
       "start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, greenContextId INTEGER, "
       "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, graphId INTEGER, graphExecId INTEGER"},
      // OpenACC: Nsight's table names, the columns its queries use (nameId,
      // eventKind, lineNo, srcFile, funcName, globalTid, bytes) and the rest
      // under CUPTI's field names (docs/sqlite.md).
      // GPU metrics (the gpu_metrics activity): Nsight's two tables, typeId
      // telling the devices apart (typeId & 0xFF is the device), value REAL
      // where Nsight rounds to integers; CUPTI's metric names in our own table.
      {"TARGET_INFO_GPU_METRICS",
       "typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL, typeName TEXT NOT NULL, metricId INTEGER NOT NULL, "
       "metricName TEXT NOT NULL"},
      {"GPU_METRICS", "timestamp INTEGER, typeId INTEGER NOT NULL, metricId INTEGER NOT NULL, value REAL"},
      {"CUPTITRACE_GPU_METRICS",
       "typeId INTEGER NOT NULL, metricId INTEGER NOT NULL, cuptiName TEXT NOT NULL, unit TEXT, samples INTEGER"},
      {"CUPTI_ACTIVITY_KIND_OPENACC_DATA",
       "start INTEGER, end INTEGER, globalTid INTEGER, nameId INTEGER, eventKind INTEGER, "
       "parentConstruct INTEGER, version INTEGER, implicit INTEGER, deviceType INTEGER, deviceNumber INTEGER, "
       "threadId INTEGER, async INTEGER, asyncMap INTEGER, lineNo INTEGER, endLineNo INTEGER, funcLineNo INTEGER, "
       "funcEndLineNo INTEGER, cuDeviceId INTEGER, cuContextId INTEGER, cuStreamId INTEGER, cuProcessId INTEGER, "
       "cuThreadId INTEGER, externalId INTEGER, srcFile INTEGER, funcName INTEGER, "
       "bytes INTEGER, hostPtr INTEGER, devicePtr INTEGER, varName INTEGER"},
      {"CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH",
       "start INTEGER, end INTEGER, globalTid INTEGER, nameId INTEGER, eventKind INTEGER, "
       "parentConstruct INTEGER, version INTEGER, implicit INTEGER, deviceType INTEGER, deviceNumber INTEGER, "
       "threadId INTEGER, async INTEGER, asyncMap INTEGER, lineNo INTEGER, endLineNo INTEGER, funcLineNo INTEGER, "
       "funcEndLineNo INTEGER, cuDeviceId INTEGER, cuContextId INTEGER, cuStreamId INTEGER, cuProcessId INTEGER, "
       "cuThreadId INTEGER, externalId INTEGER, srcFile INTEGER, funcName INTEGER, "
       "numGangs INTEGER, numWorkers INTEGER, vectorLength INTEGER, kernelName INTEGER"},
      {"CUPTI_ACTIVITY_KIND_OPENACC_OTHER",
       "start INTEGER, end INTEGER, globalTid INTEGER, nameId INTEGER, eventKind INTEGER, "
       "parentConstruct INTEGER, version INTEGER, implicit INTEGER, deviceType INTEGER, deviceNumber INTEGER, "
       "threadId INTEGER, async INTEGER, asyncMap INTEGER, lineNo INTEGER, endLineNo INTEGER, funcLineNo INTEGER, "
       "funcEndLineNo INTEGER, cuDeviceId INTEGER, cuContextId INTEGER, cuStreamId INTEGER, cuProcessId INTEGER, "
       "cuThreadId INTEGER, externalId INTEGER, srcFile INTEGER, funcName INTEGER"},
      {"CUPTI_ACTIVITY_KIND_OVERHEAD",
       "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, "
       "nameId INTEGER, overheadType INTEGER"},
      {"CUPTI_ACTIVITY_KIND_RUNTIME",
       "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, "
       "nameId INTEGER, returnValue INTEGER, callchainId INTEGER"},
      {"CUDA_GPU_MEMORY_USAGE_EVENTS",
       "start INTEGER, globalPid INTEGER, deviceId INTEGER, contextId INTEGER, address INTEGER, pc INTEGER, "
       "bytes INTEGER, memKind INTEGER, memoryOperationType INTEGER, name TEXT, correlationId INTEGER, "
       "streamId INTEGER, localMemoryPoolAddress INTEGER, localMemoryPoolReleaseThreshold INTEGER, "
       "localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER, importedMemoryPoolAddress INTEGER, "
       "importedMemoryPoolProcessId INTEGER"},
      {"CUDA_GPU_MEMORY_POOL_EVENTS",
       "start INTEGER, globalPid INTEGER, deviceId INTEGER, address INTEGER, operationType INTEGER, "
       "poolType INTEGER, correlationId INTEGER, minBytesToKeep INTEGER, "
       "localMemoryPoolReleaseThreshold INTEGER, localMemoryPoolSize INTEGER, "
       "localMemoryPoolUtilizedSize INTEGER"},
      {"CUDA_UM_CPU_PAGE_FAULT_EVENTS",
       "start INTEGER, globalPid INTEGER, address INTEGER, originalFaultPc INTEGER, CpuInstruction INTEGER, "
       "module INTEGER, unresolvedFaultPc INTEGER, sourceFile INTEGER, sourceLine INTEGER"},
      {"CUDA_UM_GPU_PAGE_FAULT_EVENTS",
       "start INTEGER, end INTEGER, globalPid INTEGER, deviceId INTEGER, address INTEGER, "
       "numberOfPageFaults INTEGER, faultAccessType INTEGER"},
      {"NVTX_EVENTS",
       "start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER, color INTEGER, "
       "text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, "
       "uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, "
       "floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT, "
       "eventId INTEGER NOT NULL PRIMARY KEY"},
      {"OSRT_API",
       "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, nameId INTEGER, "
       "returnValue INTEGER, nestingLevel INTEGER, callchainId INTEGER, argumentsId INTEGER"},
      // Ours: what Nsight's schema has no place for.
      {"CUPTITRACE_TRACES",
       "globalPid INTEGER, file TEXT, hostName TEXT, pid INTEGER, processName TEXT, commandLine TEXT, "
       "toolVersion TEXT, clock TEXT, timeOffsetNs INTEGER, startNs INTEGER, endNs INTEGER, "
       "startRealtimeNs INTEGER, cuptiVersion INTEGER, driverVersion INTEGER, cuptiDetachedNs INTEGER"},
      {"CUPTITRACE_CONFIG", "globalPid INTEGER, name TEXT, value TEXT"},
      {"CUPTITRACE_DROPS", "globalPid INTEGER, name TEXT, count INTEGER"},
      {"CUPTITRACE_CAPTURE_WINDOWS", "globalPid INTEGER, start INTEGER, end INTEGER"},
      {"CUPTITRACE_EXTERNAL_IDS",
       "globalPid INTEGER, correlationId INTEGER, externalKind INTEGER, externalId INTEGER"},
      {"CUPTITRACE_GRAPH_NODES",
       "globalPid INTEGER, correlationId INTEGER, tableName TEXT, start INTEGER, graphId INTEGER, "
       "graphNodeId INTEGER"},
      {"CUPTITRACE_UVM_EVENTS",
       "globalPid INTEGER, kind TEXT, start INTEGER, end INTEGER, deviceId INTEGER, srcId INTEGER, "
       "dstId INTEGER, address INTEGER, value INTEGER, cause TEXT, access TEXT"},
  };
  return tables;
}

const std::vector<std::string>& sqliteIndexes() {
  // Nsight's export builds none. Each costs the exit a sort of its table on
  // one thread (about 0.2 s per million rows), so only those that a common
  // query cannot do without: the calls by correlation id, which the join of
  // each kernel, copy or set with its call looks up (the query scans the
  // GPU work, so an index on the GPU work's correlation ids would go unused:
  // a lookup the other way has SQLite build one for the query, its
  // automatic index); NVTX ranges by start, for joins on time ranges,
  // which no automatic index serves; GPU metrics by metric and time.
  static const std::vector<std::string> indexes = {
      "CREATE INDEX CUPTITRACE_RUNTIME_CORRELATION ON CUPTI_ACTIVITY_KIND_RUNTIME (correlationId)",
      "CREATE INDEX CUPTITRACE_NVTX_START ON NVTX_EVENTS (start)",
      "CREATE INDEX CUPTITRACE_GPU_METRICS_TIME ON GPU_METRICS (typeId, metricId, timestamp)",
  };
  return indexes;
}

std::string sqliteIndexTable(const std::string& createIndex) {
  const size_t on = createIndex.find(" ON ");
  if (on == std::string::npos) return {};
  const size_t from = on + 4;
  return createIndex.substr(from, createIndex.find(' ', from) - from);
}

const char* sqliteTableColumns(std::string_view name) {
  for (const SqliteTableSpec& t : sqliteTables())
    if (name == t.name) return t.columns;
  return nullptr;
}

const std::vector<SqliteEnumTable>& sqliteEnums() {
  // Ids and labels as Nsight's exports have them. Most are CUPTI's own enum
  // values (copy kind, sync type, pool type, unified memory access and cause);
  // Nsight shifts three: memory kinds count from Pageable = 0 (CUPTI's - 1),
  // launch types from Unknown = 0 and pool operations from Created = 1 (CUPTI's + 1).
  static const std::vector<SqliteEnumTable> enums = {
      {"ENUM_CUDA_MEMCPY_OPER",
       {{0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"},
        {1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
        {2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"},
        {3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
        {4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"},
        {5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
        {6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"},
        {7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
        {8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"},
        {9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
        {10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"},
        {kNsysCopyUnifiedHtoD, "CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"},
        {kNsysCopyUnifiedDtoH, "CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"},
        {kNsysCopyUnifiedDtoD, "CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"}}},
      {"ENUM_CUDA_MEM_KIND",
       {{0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
        {1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
        {2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
        {3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
        {4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"},
        {5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
        {6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"}}},
      {"ENUM_CUDA_KERNEL_LAUNCH_TYPE",
       {{0, "CUDA_KERNEL_LAUNCH_TYPE_UNKNOWN", "Unknown"},
        {1, "CUDA_KERNEL_LAUNCH_TYPE_REGULAR", "Regular"},
        {2, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE", "Coop Single Device"},
        {3, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE", "Coop Multi Device"},
        {4, "CUDA_KERNEL_LAUNCH_TYPE_CBL_PROGRAMMATIC", "Programmatic Dependent Launch"}}},
      {"ENUM_OPENACC_EVENT_KIND",
       {{0, "CUPTI_OPENACC_EVENT_KIND_INVALID", "Invalid"},
        {1, "CUPTI_OPENACC_EVENT_KIND_DEVICE_INIT", "Device init"},
        {2, "CUPTI_OPENACC_EVENT_KIND_DEVICE_SHUTDOWN", "Device shutdown"},
        {3, "CUPTI_OPENACC_EVENT_KIND_RUNTIME_SHUTDOWN", "Runtime shutdown"},
        {4, "CUPTI_OPENACC_EVENT_KIND_ENQUEUE_LAUNCH", "Enqueue launch"},
        {5, "CUPTI_OPENACC_EVENT_KIND_ENQUEUE_UPLOAD", "Enqueue upload"},
        {6, "CUPTI_OPENACC_EVENT_KIND_ENQUEUE_DOWNLOAD", "Enqueue download"},
        {7, "CUPTI_OPENACC_EVENT_KIND_WAIT", "Wait"},
        {8, "CUPTI_OPENACC_EVENT_KIND_IMPLICIT_WAIT", "Implicit wait"},
        {9, "CUPTI_OPENACC_EVENT_KIND_COMPUTE_CONSTRUCT", "Compute construct"},
        {10, "CUPTI_OPENACC_EVENT_KIND_UPDATE", "Update"},
        {11, "CUPTI_OPENACC_EVENT_KIND_ENTER_DATA", "Enter data"},
        {12, "CUPTI_OPENACC_EVENT_KIND_EXIT_DATA", "Exit data"},
        {13, "CUPTI_OPENACC_EVENT_KIND_CREATE", "Create"},
        {14, "CUPTI_OPENACC_EVENT_KIND_DELETE", "Delete"},
        {15, "CUPTI_OPENACC_EVENT_KIND_ALLOC", "Alloc"},
        {16, "CUPTI_OPENACC_EVENT_KIND_FREE", "Free"}}},
      {"ENUM_CUPTI_SYNC_TYPE",
       {{0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown"},
        {1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync"},
        {2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait sync"},
        {3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"},
        {4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync"}}},
      {"ENUM_CUDA_DEV_MEM_EVENT_OPER",
       {{0, "CUDA_DEV_MEM_EVENT_OPR_ALLOCATION", "Allocation"},
        {1, "CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION", "Deallocation"}}},
      {"ENUM_CUDA_MEMPOOL_OPER",
       {{1, "CUDA_MEMPOOL_OPER_CREATED", "Created"},
        {2, "CUDA_MEMPOOL_OPER_DESTROYED", "Destroyed"},
        {3, "CUDA_MEMPOOL_OPER_TRIMMED", "Trimmed"}}},
      {"ENUM_CUDA_MEMPOOL_TYPE",
       {{0, "CUDA_MEMPOOL_TYPE_INVALID", "Invalid"},
        {1, "CUDA_MEMPOOL_TYPE_LOCAL", "Local"},
        {2, "CUDA_MEMPOOL_TYPE_IMPORTED", "Imported"}}},
      {"ENUM_CUDA_UNIF_MEM_ACCESS_TYPE",
       {{0, "CUDA_UNIF_MEM_ACCESS_TYPE_UNKNOWN", "Unknown"},
        {1, "CUDA_UNIF_MEM_ACCESS_TYPE_READ", "Read"},
        {2, "CUDA_UNIF_MEM_ACCESS_TYPE_WRITE", "Write"},
        {3, "CUDA_UNIF_MEM_ACCESS_TYPE_ATOMIC", "Atomic"},
        {4, "CUDA_UNIF_MEM_ACCESS_TYPE_PREFETCH", "Prefetch"}}},
      {"ENUM_CUDA_UNIF_MEM_MIGRATION",
       {{0, "CUDA_UNIF_MEM_MIGRATION_UNKNOWN", "Unknown"},
        {1, "CUDA_UNIF_MEM_MIGRATION_USER", "User prefetch"},
        {2, "CUDA_UNIF_MEM_MIGRATION_COHERENCE", "Page fault"},
        {3, "CUDA_UNIF_MEM_MIGRATION_PREFETCH", "Prefetch"},
        {4, "CUDA_UNIF_MEM_MIGRATION_EVICTION", "Eviction"},
        {5, "CUDA_UNIF_MEM_MIGRATION_ACCESS_COUNTERS", "Access counters"}}},
      {"ENUM_NSYS_EVENT_TYPE",
       {{kNsysNvtxMark, "NvtxMark", "NVTX Mark"},
        {kNsysNvtxPushPopRange, "NvtxPushPopRange", "NVTX PushPop Range"},
        {kNsysNvtxStartEndRange, "NvtxStartEndRange", "NVTX StartEnd Range"},
        {kNsysNvtxDomainCreate, "NvtxDomainCreate", "NVTX Domain Create"}}},
      {"ENUM_NSYS_EVENT_CLASS",
       {{kNsysClassCudaRuntime, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime"},
        {kNsysClassCudaDriver, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver"},
        {kNsysClassOsrt, "TRACE_PROCESS_EVENT_OS_RUNTIME", "OSRT runtime"}}},
  };
  return enums;
}

std::string sqliteInsert(const char* table, std::initializer_list<const char*> columns) {
  std::string sql = std::string("INSERT INTO ") + table + " (";
  std::string values;
  for (const char* c : columns) {
    if (!values.empty()) {
      sql += ", ";
      values += ", ";
    }
    sql += c;
    values += '?';
  }
  return sql + ") VALUES (" + values + ")";
}

}  // namespace cuptitrace
