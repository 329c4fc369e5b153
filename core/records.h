// The event model: one plain, fixed-size struct per record kind.
//
// Records are copied out of CUPTI's buffers by the decoder (collectors/) and
// are all that exporters see. They hold no pointers: strings are interned ids
// (see string_table.h), so a record can be written to disk and read back as is.
// Times are nanoseconds on the one clock CUPTI uses for both CPU and GPU records.
#pragma once

#include <cstdint>
#include <type_traits>

namespace cuptitrace {

using StringId = uint32_t;  // 0 is the empty string
inline constexpr StringId kNoString = 0;

enum class RecordKind : uint8_t {
  Kernel = 0,
  Memcpy,
  Memset,
  Api,
  Nvtx,
  Sync,
  Overhead,
  Memory,      // GPU memory allocations and frees
  MemoryPool,  // memory pool creation, trim and destruction
  Uvm,         // unified memory transfers and page faults
  Graph,       // whole CUDA graph launches (graph-level tracing)
  ExternalId,  // external correlation: an application id attached to API calls
  OpenAcc,     // OpenACC runtime events (data, launch, other), through the OpenACC tools interface
  GpuMetric,   // samples of a device's performance monitors (PM sampling), one per sampling period
  Count  // number of kinds; keep last
};
inline constexpr int kRecordKindCount = static_cast<int>(RecordKind::Count);

// Lower-case name of a record kind ("kernel", "memcpy", ...).
const char* recordKindName(RecordKind kind);

// ---- GPU work --------------------------------------------------------------

enum class KernelLaunchType : uint8_t { Regular = 0, CooperativeSingle = 1, CooperativeMulti = 2, CblProgrammatic = 3 };

const char* launchTypeName(uint8_t type);  // KernelLaunchType: "Regular", ...

struct KernelRecord {
  uint64_t start;          // ns
  uint64_t end;            // ns; 0 when CUPTI could not collect it
  uint64_t graphNodeId;    // 0 when not launched from a graph
  StringId name;           // mangled name as CUPTI gives it
  uint32_t correlationId;  // matches the ApiRecord of the launching call
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  uint32_t graphId;        // 0 when not launched from a graph
  int32_t gridX, gridY, gridZ;
  uint16_t blockX, blockY, blockZ;  // at most 1024 each
  uint16_t reserved;
  int32_t staticSharedMemory;   // bytes per block
  int32_t dynamicSharedMemory;  // bytes per block
  uint16_t registersPerThread;
  uint8_t launchType;           // KernelLaunchType
  uint8_t isDeviceLaunched;     // 1 for device-side launches
};

// Direction of a copy, as CUPTI names it (CUpti_ActivityMemcpyKind values).
enum class CopyKind : uint8_t {
  Unknown = 0, HtoD = 1, DtoH = 2, HtoA = 3, AtoH = 4, AtoA = 5, AtoD = 6, DtoA = 7,
  DtoD = 8, HtoH = 9, PtoP = 10
};
const char* copyKindName(CopyKind kind);  // "HtoD", ...

// Kind of the memory on either side of a copy or under a memset
// (CUpti_ActivityMemoryKind values).
enum class MemoryKind : uint8_t {
  Unknown = 0, Pageable = 1, Pinned = 2, Device = 3, Array = 4, Managed = 5, DeviceStatic = 6,
  ManagedStatic = 7
};
const char* memoryKindName(MemoryKind kind);  // "Pageable", ...

inline constexpr uint8_t kCopyFlagAsync = 1;  // issued asynchronously (cudaMemcpyAsync, ...)

struct MemcpyRecord {
  uint64_t start;
  uint64_t end;
  uint64_t bytes;
  uint64_t graphNodeId;
  uint32_t correlationId;
  uint32_t deviceId;     // for PtoP: the device that ran the copy
  uint32_t contextId;
  uint32_t streamId;
  uint32_t srcDeviceId;  // PtoP only, otherwise equal to deviceId
  uint32_t dstDeviceId;  // PtoP only, otherwise equal to deviceId
  uint32_t graphId;
  uint8_t copyKind;      // CopyKind
  uint8_t srcKind;       // MemoryKind
  uint8_t dstKind;       // MemoryKind
  uint8_t flags;         // kCopyFlag*
};

struct MemsetRecord {
  uint64_t start;
  uint64_t end;
  uint64_t bytes;
  uint64_t graphNodeId;
  uint32_t correlationId;
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  uint32_t graphId;
  uint32_t value;
  uint8_t memoryKind;  // MemoryKind
  uint8_t flags;       // kCopyFlagAsync
  uint16_t reserved;
  uint32_t reserved2;
};

// ---- CPU side ---------------------------------------------------------------

// Osrt: a C library call that blocked the thread (file I/O, sleeps, lock and
// condition waits, polls), recorded by the library's own wrappers, not CUPTI.
enum class ApiDomain : uint8_t { Runtime = 0, Driver = 1, Osrt = 2 };
const char* apiDomainName(uint8_t domain);  // "runtime", "driver", "osrt"

struct ApiRecord {
  uint64_t start;
  uint64_t end;
  StringId name;           // "cudaLaunchKernel", "cuMemAlloc_v2", ...
  uint32_t correlationId;
  uint32_t threadId;       // OS thread id (gettid)
  uint32_t cbid;           // CUPTI callback id within the domain; for Osrt an OsrtCall
  uint32_t returnValue;    // cudaError_t or CUresult; for Osrt the errno of a failed call, else 0
  uint8_t domain;          // ApiDomain
  uint8_t reserved[3];
};

enum class NvtxType : uint8_t { PushPop = 0, StartEnd = 1, Mark = 2 };
const char* nvtxTypeName(NvtxType type);  // "PushPop", "StartEnd", "Mark"

enum class NvtxPayload : uint8_t { None = 0, U64 = 1, I64 = 2, Double = 3, U32 = 4, I32 = 5, Float = 6 };

inline constexpr uint8_t kNvtxHasColor = 1;
inline constexpr uint8_t kNvtxOpen = 2;  // range never closed before the trace ended

struct NvtxRecord {
  uint64_t start;          // ns
  uint64_t end;            // ns; == start for marks; last timestamp seen for open ranges
  uint64_t id;             // range id of start/end ranges, 0 otherwise
  uint64_t payload;        // raw bits, see payloadType
  uint32_t threadId;       // thread that opened the range (or made the mark)
  uint32_t endThreadId;    // thread that closed it (StartEnd ranges may differ)
  StringId message;
  StringId domain;         // kNoString for the default domain
  uint32_t category;
  uint32_t color;          // ARGB, valid when flags & kNvtxHasColor
  uint16_t depth;          // nesting depth of push/pop ranges on their thread (0 = outermost)
  uint8_t type;            // NvtxType
  uint8_t payloadType;     // NvtxPayload
  uint8_t flags;           // kNvtx*
  uint8_t reserved[3];
};

enum class SyncType : uint8_t { Unknown = 0, EventSynchronize = 1, StreamWaitEvent = 2, StreamSynchronize = 3, ContextSynchronize = 4 };
const char* syncTypeName(SyncType type);

// The id CUPTI gives where none applies (a sync record's stream or event, an overhead's device).
inline constexpr uint32_t kNotApplicable = 0xffffffffu;

struct SyncRecord {
  uint64_t start;
  uint64_t end;
  uint32_t correlationId;
  uint32_t contextId;
  uint32_t streamId;       // 0xffffffff when not applicable
  uint32_t eventId;        // 0xffffffff when not applicable
  uint8_t type;            // SyncType
  uint8_t reserved[7];
};

struct OverheadRecord {
  uint64_t start;
  uint64_t end;
  StringId name;           // "CUPTI buffer flush", ...
  uint32_t threadId;       // when the overhead belongs to a thread, else 0
  uint32_t deviceId;       // when it belongs to a device, else 0xffffffff
  uint32_t reserved;
};

// ---- GPU memory ---------------------------------------------------------------

enum class MemoryOp : uint8_t { Allocation = 0, Release = 1 };
const char* memoryOpName(uint8_t op);  // "alloc", "free"

// How an allocation relates to a memory pool (CUpti_ActivityMemoryPoolType values).
enum class PoolType : uint8_t { None = 0, Local = 1, Imported = 2 };

struct MemoryRecord {
  uint64_t timestamp;      // ns
  uint64_t address;
  uint64_t bytes;
  uint64_t poolAddress;    // 0 unless the memory came from a pool (cudaMallocAsync)
  uint32_t correlationId;  // the API call that allocated or freed
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;       // 0xffffffff when not stream-ordered
  uint8_t operation;       // MemoryOp
  uint8_t memoryKind;      // MemoryKind
  uint8_t poolType;        // PoolType
  uint8_t isAsync;         // 1 for the stream-ordered calls (cudaMallocAsync, cudaFreeAsync)
  uint32_t reserved;
};

enum class PoolOp : uint8_t { Created = 0, Destroyed = 1, Trimmed = 2 };
const char* poolOpName(uint8_t op);      // "created", "destroyed", "trimmed"
const char* poolTypeName(uint8_t type);  // "", "local", "imported"

struct MemoryPoolRecord {
  uint64_t timestamp;
  uint64_t address;           // the pool's base address
  uint64_t releaseThreshold;  // bytes
  uint64_t size;              // bytes reserved by the pool
  uint64_t utilizedSize;      // bytes in use
  uint64_t minBytesToKeep;    // trims only: what the trim kept
  uint32_t correlationId;
  uint32_t deviceId;
  uint8_t operation;          // PoolOp
  uint8_t poolType;           // PoolType
  uint8_t isManaged;          // 1 for a pool of managed memory
  uint8_t reserved[5];
};

// Unified memory counters (CUpti_ActivityUnifiedMemoryCounterKind values).
enum class UvmKind : uint8_t {
  Unknown = 0, BytesHtoD = 1, BytesDtoH = 2, CpuPageFault = 3, GpuPageFault = 4, Thrashing = 5,
  Throttling = 6, RemoteMap = 7, BytesDtoD = 8
};

const char* uvmKindName(uint8_t kind);  // "HtoD", "DtoH", "CPU page fault", ...

// Why unified memory moved (CUpti_ActivityUnifiedMemoryMigrationCause values),
// and the access that faulted (CUpti_ActivityUnifiedMemoryAccessType values).
const char* uvmCauseName(uint8_t cause);       // "user", "coherence", "prefetch", "eviction", ...
const char* uvmAccessName(uint8_t access);     // "read", "write", "atomic", "prefetch"

inline constexpr uint32_t kUvmNoDevice = 0xffffffffu;  // deviceId of a CPU page fault

struct UvmRecord {
  uint64_t start;
  uint64_t end;      // == start for instantaneous counters (CPU page faults)
  uint64_t address;
  uint64_t value;    // bytes for transfers, fault groups for GPU faults, the PC for CPU faults
  uint32_t srcId;    // source processor, as CUPTI numbers it
  uint32_t dstId;    // destination processor
  uint32_t deviceId; // the GPU involved: the destination of HtoD and DtoD, the source of DtoH,
                     // the GPU that faulted; kUvmNoDevice for CPU page faults
  uint8_t kind;      // UvmKind
  uint8_t accessType;// GPU page faults: the access that faulted
  uint8_t cause;     // transfers: the migration cause; remote maps: the map cause
  uint8_t reserved;
};

// ---- CUDA graphs --------------------------------------------------------------

// One launch of a whole graph, recorded instead of its nodes when graphs are
// traced at graph level.
struct GraphRecord {
  uint64_t start;
  uint64_t end;
  uint32_t graphId;
  uint32_t correlationId;  // the cudaGraphLaunch call
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  uint32_t endDeviceId;    // the device of the graph's last node
};

// ---- Framework correlation ----------------------------------------------------

// Who pushed an external id (CUpti_ExternalCorrelationKind values). The public
// API (include/cuptitrace/cuptitrace.h) pushes plain ids as Id and named
// scopes as Scope.
enum class ExternalKind : uint8_t { Invalid = 0, Unknown = 1, OpenAcc = 2, Id = 3, Scope = 4, Custom2 = 5 };

// A scope is also drawn as an NVTX push/pop range of this domain, named after
// the scope, with the scope's id as its u64 payload: that is where its name is.
inline constexpr const char* kScopeNvtxDomain = "cuptitrace";
// NVTX domain of the Python start-up hook's ranges (--python-backtrace): each
// range's message is the innermost frames of user code around a torch call,
// "train.py:42 forward <- train.py:90 main"; the calls made inside carry it.
inline constexpr const char* kPythonNvtxDomain = "python";

// Attaches an application's id (an operator, a request) to one API call and so
// to the GPU work that call launched.
struct ExternalIdRecord {
  uint64_t externalId;
  uint32_t correlationId;
  uint8_t externalKind;  // ExternalKind
  uint8_t reserved[3];
};

// ---- OpenACC ------------------------------------------------------------------

// Which of CUPTI's three OpenACC record kinds a record came from.
enum class OpenAccType : uint8_t { Data = 0, Launch = 1, Other = 2 };
const char* openAccTypeName(uint8_t type);  // "data", "launch", "other"

// OpenACC event kinds (CUpti_OpenAccEventKind values).
enum class OpenAccEvent : uint8_t {
  Invalid = 0, DeviceInit = 1, DeviceShutdown = 2, RuntimeShutdown = 3, EnqueueLaunch = 4,
  EnqueueUpload = 5, EnqueueDownload = 6, Wait = 7, ImplicitWait = 8, ComputeConstruct = 9,
  Update = 10, EnterData = 11, ExitData = 12, Create = 13, Delete = 14, Alloc = 15, Free = 16
};
// The OpenACC tools interface's name of an event kind: "acc_enqueue_launch", ...
const char* openAccEventName(uint8_t event);
// OpenACC construct kinds (CUpti_OpenAccConstructKind values): "parallel", "data", ...
const char* openAccConstructName(uint8_t construct);

// One OpenACC event: a construct (compute, data, update, enter/exit data), an
// enqueued launch or transfer, a wait, an allocation. The launch and data
// fields are 0 (or kNoString) in records of the other types.
struct OpenAccRecord {
  uint64_t start;          // ns
  uint64_t end;            // ns
  uint64_t async;          // value of the async() clause
  uint64_t asyncMap;       // the runtime's queue for it
  uint64_t bytes;          // data: bytes moved or allocated
  uint64_t hostPtr;        // data
  uint64_t devicePtr;      // data
  uint64_t numGangs;       // launch
  uint64_t numWorkers;     // launch
  uint64_t vectorLength;   // launch
  StringId srcFile;        // source file as the runtime names it
  StringId funcName;       // function the event occurred in
  StringId varName;        // data: the variable ("X[:in_size]")
  StringId kernelName;     // launch: the kernel launched
  uint32_t version;
  uint32_t deviceType;     // acc_device_t, as the runtime numbers it (NVIDIA's and GCC's differ)
  uint32_t deviceNumber;
  uint32_t threadId;       // the OpenACC runtime's thread id
  uint32_t lineNo;         // 0 when unknown (CUPTI's zero or negative)
  uint32_t endLineNo;      // likewise
  uint32_t funcLineNo;
  uint32_t funcEndLineNo;
  uint32_t cuDeviceId;     // valid for NVIDIA devices
  uint32_t cuContextId;
  uint32_t cuStreamId;
  uint32_t cuProcessId;
  uint32_t cuThreadId;     // OS thread id (the tid API records carry)
  uint32_t externalId;     // OpenACC correlation id: the external id of the CUDA calls it made
  uint8_t type;            // OpenAccType
  uint8_t eventKind;       // OpenAccEvent
  uint8_t parentConstruct; // CUpti_OpenAccConstructKind
  uint8_t implicit;        // 1 for an implicit event (the wait at the end of a synchronous construct)
};

// ---- GPU metrics ----------------------------------------------------------------

// Most metrics one sample holds: PM sampling collects a metric set in one
// pass, which the hardware bounds well below this.
inline constexpr int kGpuMetricSlots = 16;

// One sample of a device's performance monitors over [start, end): the
// values of the metrics of `metricSet` (an interned description of the set,
// core/gpu_metrics.h), in its order. Slots past the set's size are 0; a
// value the sampler could not evaluate is NaN.
struct GpuMetricRecord {
  uint64_t start;      // ns, trace clock
  uint64_t end;        // ns, trace clock
  uint32_t deviceId;
  StringId metricSet;
  float values[kGpuMetricSlots];
};

// Fixed sizes: records are written to disk raw (see exporters/native), so a
// change here is a change of the native format version.
static_assert(sizeof(KernelRecord) == 80);
static_assert(sizeof(MemcpyRecord) == 64);
static_assert(sizeof(MemsetRecord) == 64);
static_assert(sizeof(ApiRecord) == 40);
static_assert(sizeof(NvtxRecord) == 64);
static_assert(sizeof(SyncRecord) == 40);
static_assert(sizeof(OverheadRecord) == 32);
static_assert(sizeof(MemoryRecord) == 56);
static_assert(sizeof(MemoryPoolRecord) == 64);
static_assert(sizeof(UvmRecord) == 48);
static_assert(sizeof(GraphRecord) == 40);
static_assert(sizeof(ExternalIdRecord) == 16);
static_assert(sizeof(OpenAccRecord) == 160);
static_assert(sizeof(GpuMetricRecord) == 88);
static_assert(std::is_trivially_copyable_v<KernelRecord> && std::is_trivially_copyable_v<MemcpyRecord> &&
              std::is_trivially_copyable_v<MemsetRecord> && std::is_trivially_copyable_v<ApiRecord> &&
              std::is_trivially_copyable_v<NvtxRecord> && std::is_trivially_copyable_v<SyncRecord> &&
              std::is_trivially_copyable_v<OverheadRecord> && std::is_trivially_copyable_v<MemoryRecord> &&
              std::is_trivially_copyable_v<MemoryPoolRecord> && std::is_trivially_copyable_v<UvmRecord> &&
              std::is_trivially_copyable_v<GraphRecord> && std::is_trivially_copyable_v<ExternalIdRecord> &&
              std::is_trivially_copyable_v<OpenAccRecord> && std::is_trivially_copyable_v<GpuMetricRecord>);

// Maps a record type to its kind, for templates over all kinds.
template <typename T> struct RecordKindOf;
template <> struct RecordKindOf<KernelRecord> { static constexpr RecordKind value = RecordKind::Kernel; };
template <> struct RecordKindOf<MemcpyRecord> { static constexpr RecordKind value = RecordKind::Memcpy; };
template <> struct RecordKindOf<MemsetRecord> { static constexpr RecordKind value = RecordKind::Memset; };
template <> struct RecordKindOf<ApiRecord> { static constexpr RecordKind value = RecordKind::Api; };
template <> struct RecordKindOf<NvtxRecord> { static constexpr RecordKind value = RecordKind::Nvtx; };
template <> struct RecordKindOf<SyncRecord> { static constexpr RecordKind value = RecordKind::Sync; };
template <> struct RecordKindOf<OverheadRecord> { static constexpr RecordKind value = RecordKind::Overhead; };
template <> struct RecordKindOf<MemoryRecord> { static constexpr RecordKind value = RecordKind::Memory; };
template <> struct RecordKindOf<MemoryPoolRecord> { static constexpr RecordKind value = RecordKind::MemoryPool; };
template <> struct RecordKindOf<UvmRecord> { static constexpr RecordKind value = RecordKind::Uvm; };
template <> struct RecordKindOf<GraphRecord> { static constexpr RecordKind value = RecordKind::Graph; };
template <> struct RecordKindOf<ExternalIdRecord> { static constexpr RecordKind value = RecordKind::ExternalId; };
template <> struct RecordKindOf<OpenAccRecord> { static constexpr RecordKind value = RecordKind::OpenAcc; };
template <> struct RecordKindOf<GpuMetricRecord> { static constexpr RecordKind value = RecordKind::GpuMetric; };

// Every record type, in RecordKind order: code over all kinds is written once
// against this list, so adding a kind is adding it here.
template <typename... Ts> struct RecordTypeList {};
using AllRecordTypes = RecordTypeList<KernelRecord, MemcpyRecord, MemsetRecord, ApiRecord, NvtxRecord, SyncRecord,
                                      OverheadRecord, MemoryRecord, MemoryPoolRecord, UvmRecord, GraphRecord,
                                      ExternalIdRecord, OpenAccRecord, GpuMetricRecord>;

// A value standing for a record type: f(RecordTag<T>{}) lets a generic lambda
// name T as typename decltype(tag)::type.
template <typename T> struct RecordTag { using type = T; };

// Calls f(RecordTag<T>{}) for every record type, in RecordKind order.
template <typename F, typename... Ts>
void forEachRecordType(RecordTypeList<Ts...>, F&& f) {
  (f(RecordTag<Ts>{}), ...);
}
template <typename F>
void forEachRecordType(F&& f) {
  forEachRecordType(AllRecordTypes{}, f);
}

// Time span of any record: an instant (an allocation) starts and ends at its
// timestamp; a record with no time of its own (an external id) has {0, 0}.
template <typename T, typename = void> struct HasSpan : std::false_type {};
template <typename T>
struct HasSpan<T, std::void_t<decltype(T::start), decltype(T::end)>> : std::true_type {};
template <typename T, typename = void> struct HasTimestamp : std::false_type {};
template <typename T>
struct HasTimestamp<T, std::void_t<decltype(T::timestamp)>> : std::true_type {};

template <typename T>
uint64_t recordStart(const T& r) {
  if constexpr (HasSpan<T>::value) return r.start;
  else if constexpr (HasTimestamp<T>::value) return r.timestamp;
  else return 0;
}
template <typename T>
uint64_t recordEnd(const T& r) {
  if constexpr (HasSpan<T>::value) return r.end;
  else if constexpr (HasTimestamp<T>::value) return r.timestamp;
  else return 0;
}
template <typename T>
inline constexpr bool kIsTimed = HasSpan<T>::value || HasTimestamp<T>::value;

// Calls f(RecordTag<T>{}) for the record type of `kind`; false for an unknown kind.
template <typename F>
bool visitRecordKind(RecordKind kind, F&& f) {
  bool found = false;
  forEachRecordType([&](auto tag) {
    if (!found && RecordKindOf<typename decltype(tag)::type>::value == kind) {
      found = true;
      f(tag);
    }
  });
  return found;
}

}  // namespace cuptitrace
