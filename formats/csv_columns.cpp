// The columns and file names of the CSV tables.
#include <array>
#include <string>
#include <vector>

#include "formats/csv.h"

namespace cuptitrace {
namespace {

// The columns of each table, fixed at compile time; the README documents them,
// so names are stable snake_case and new columns go at the end.
// clang-format off
constexpr std::array kKernelColumns = {
    "start_ns", "end_ns", "duration_ns", "device", "context", "stream", "correlation_id", "name",
    "mangled_name", "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
    "registers_per_thread", "static_shared_bytes", "dynamic_shared_bytes", "graph_id",
    "graph_node_id", "launch_type", "device_launched", "external_id", "scope", "nccl_collective",
    "nccl_op", "nccl_dtype", "nccl_algo", "nccl_proto"};
constexpr std::array kMemcpyColumns = {
    "start_ns", "end_ns", "duration_ns", "device", "context", "stream", "correlation_id", "bytes",
    "copy_kind", "src_kind", "dst_kind", "async", "src_device", "dst_device", "graph_id",
    "graph_node_id"};
constexpr std::array kMemsetColumns = {
    "start_ns", "end_ns", "duration_ns", "device", "context", "stream", "correlation_id", "bytes",
    "value", "memory_kind", "async", "graph_id", "graph_node_id"};
// api_set: which calls of the row's API were recorded (lean, all), so that a
// table of the lean set is not read as every call the program made.
constexpr std::array kApiColumns = {"start_ns", "end_ns",         "duration_ns", "domain",
                                    "name",     "thread_id",      "correlation_id", "cbid",
                                    "return_value", "api_set"};
constexpr std::array kNvtxColumns = {
    "type", "start_ns", "end_ns", "duration_ns", "thread_id", "end_thread_id", "domain", "message",
    "category", "color", "payload_type", "payload", "range_id", "depth", "open"};
constexpr std::array kSyncColumns = {"type", "start_ns", "end_ns", "duration_ns", "context",
                                     "stream", "event", "correlation_id"};
constexpr std::array kOverheadColumns = {"name", "start_ns", "end_ns", "duration_ns", "thread_id",
                                         "device"};
constexpr std::array kMemoryColumns = {
    "timestamp_ns", "operation", "device", "context", "stream", "correlation_id", "address", "bytes",
    "memory_kind", "async", "pool_type", "pool_address"};
constexpr std::array kMemoryPoolColumns = {
    "timestamp_ns", "operation", "device", "correlation_id", "address", "pool_type", "managed",
    "size_bytes", "utilized_bytes", "release_threshold_bytes", "min_bytes_to_keep"};
constexpr std::array kUvmColumns = {
    "kind", "start_ns", "end_ns", "duration_ns", "device", "src_id", "dst_id", "address", "bytes",
    "fault_groups", "pc", "cause", "access"};
constexpr std::array kGraphColumns = {"start_ns", "end_ns", "duration_ns", "device", "context",
                                      "stream", "correlation_id", "graph_id", "end_device"};
constexpr std::array kExternalIdColumns = {"correlation_id", "kind", "external_id", "scope"};
// Every field of CUPTI's OpenACC data, launch and other records; those of
// another type's record are empty.
constexpr std::array kOpenAccColumns = {
    "type", "event", "start_ns", "end_ns", "duration_ns", "thread_id", "process_id", "src_file",
    "line", "end_line", "func_name", "func_line", "func_end_line", "parent_construct", "implicit",
    "version", "device_type", "device_number", "acc_thread_id", "async", "async_map", "device",
    "context", "stream", "external_id", "var_name", "bytes", "host_ptr", "device_ptr",
    "kernel_name", "num_gangs", "num_workers", "vector_length"};
// clang-format on

template <size_t N>
std::vector<std::string> toVector(const std::array<const char*, N>& columns) {
  return std::vector<std::string>(columns.begin(), columns.end());
}

}  // namespace

const std::vector<std::string>& csvColumns(RecordKind kind) {
  static const std::vector<std::string> kernels = toVector(kKernelColumns);
  static const std::vector<std::string> memcpy = toVector(kMemcpyColumns);
  static const std::vector<std::string> memset = toVector(kMemsetColumns);
  static const std::vector<std::string> api = toVector(kApiColumns);
  static const std::vector<std::string> nvtx = toVector(kNvtxColumns);
  static const std::vector<std::string> sync = toVector(kSyncColumns);
  static const std::vector<std::string> overhead = toVector(kOverheadColumns);
  static const std::vector<std::string> memory = toVector(kMemoryColumns);
  static const std::vector<std::string> memoryPool = toVector(kMemoryPoolColumns);
  static const std::vector<std::string> uvm = toVector(kUvmColumns);
  static const std::vector<std::string> graphs = toVector(kGraphColumns);
  static const std::vector<std::string> externalIds = toVector(kExternalIdColumns);
  static const std::vector<std::string> openAcc = toVector(kOpenAccColumns);
  static const std::vector<std::string> none;
  switch (kind) {
    case RecordKind::Kernel:
      return kernels;
    case RecordKind::Memcpy:
      return memcpy;
    case RecordKind::Memset:
      return memset;
    case RecordKind::Api:
      return api;
    case RecordKind::Nvtx:
      return nvtx;
    case RecordKind::Sync:
      return sync;
    case RecordKind::Overhead:
      return overhead;
    case RecordKind::Memory:
      return memory;
    case RecordKind::MemoryPool:
      return memoryPool;
    case RecordKind::Uvm:
      return uvm;
    case RecordKind::Graph:
      return graphs;
    case RecordKind::ExternalId:
      return externalIds;
    case RecordKind::OpenAcc:
      return openAcc;
    case RecordKind::Count:
      break;
  }
  return none;
}

const char* csvTableName(RecordKind kind) {
  switch (kind) {
    case RecordKind::Kernel:
      return "kernels";
    case RecordKind::Memcpy:
      return "memcpy";
    case RecordKind::Memset:
      return "memset";
    case RecordKind::Api:
      return "api";
    case RecordKind::Nvtx:
      return "nvtx";
    case RecordKind::Sync:
      return "sync";
    case RecordKind::Overhead:
      return "overhead";
    case RecordKind::Memory:
      return "memory";
    case RecordKind::MemoryPool:
      return "memory_pool";
    case RecordKind::Uvm:
      return "uvm";
    case RecordKind::Graph:
      return "graphs";
    case RecordKind::ExternalId:
      return "external_ids";
    case RecordKind::OpenAcc:
      return "openacc";
    case RecordKind::Count:
      break;
  }
  return "unknown";
}

}  // namespace cuptitrace
