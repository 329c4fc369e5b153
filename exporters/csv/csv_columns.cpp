// The columns and file names of the CSV tables.
#include "exporters/csv/csv_columns.h"

#include <array>
#include <string>
#include <vector>

#include "exporters/csv/csv.h"

namespace cuptitrace {
namespace {

// The columns of each table, fixed at compile time; the README documents them,
// so names are stable snake_case and new columns go at the end. Arguments
// (csv_args.h) where the table shows exactly what record_args.h gives; the
// table's own columns where the table shows more: a field the timeline
// draws on the track (times, device, context, stream, thread) or in the
// name, or gives only for some records where the table has it for all
// (a copy's src_device and dst_device only for PtoP, a graph's end_device
// only when it differs, an NVTX range's range_id and depth, an OpenACC
// event's var_name and kernel_name), or writes otherwise (host_ptr and
// device_ptr as addresses; device_launched and implicit as the record's
// value, where the timeline has a flag).
// clang-format off
constexpr std::array kKernelColumns = {
    ownColumn("start_ns"), ownColumn("end_ns"), ownColumn("duration_ns"), ownColumn("device"),
    ownColumn("context"), ownColumn("stream"), argColumn("correlation_id", Arg::Correlation),
    ownColumn("name"), ownColumn("mangled_name"),
    dimColumn("grid_x", Arg::Grid, 0), dimColumn("grid_y", Arg::Grid, 1), dimColumn("grid_z", Arg::Grid, 2),
    dimColumn("block_x", Arg::Block, 0), dimColumn("block_y", Arg::Block, 1), dimColumn("block_z", Arg::Block, 2),
    argColumn("registers_per_thread", Arg::RegistersPerThread),
    argColumn("static_shared_bytes", Arg::StaticSharedMemory),
    argColumn("dynamic_shared_bytes", Arg::DynamicSharedMemory),
    argColumn(Arg::GraphId, "0"), argColumn(Arg::GraphNodeId, "0"), argColumn(Arg::LaunchType, "Regular"),
    ownColumn("device_launched"), argColumn("external_id", Arg::ExternalId), argColumn(Arg::Scope),
    argColumn(Arg::NcclCollective), argColumn(Arg::NcclOp), argColumn(Arg::NcclDtype), argColumn(Arg::NcclAlgo),
    argColumn(Arg::NcclProto)};
constexpr std::array kMemcpyColumns = {
    ownColumn("start_ns"), ownColumn("end_ns"), ownColumn("duration_ns"), ownColumn("device"),
    ownColumn("context"), ownColumn("stream"), argColumn("correlation_id", Arg::Correlation),
    argColumn(Arg::Bytes), argColumn(Arg::CopyKind), argColumn(Arg::SrcKind), argColumn(Arg::DstKind),
    argColumn(Arg::Async), ownColumn("src_device"), ownColumn("dst_device"), argColumn(Arg::GraphId, "0"),
    argColumn(Arg::GraphNodeId, "0")};
constexpr std::array kMemsetColumns = {
    ownColumn("start_ns"), ownColumn("end_ns"), ownColumn("duration_ns"), ownColumn("device"),
    ownColumn("context"), ownColumn("stream"), argColumn("correlation_id", Arg::Correlation),
    argColumn(Arg::Bytes), argColumn(Arg::Value), argColumn(Arg::MemoryKind), argColumn(Arg::Async),
    argColumn(Arg::GraphId, "0"), argColumn(Arg::GraphNodeId, "0")};
// Every column its own: the timeline gives an osrt call only its errno, where
// the table has its correlation id and return value like any other call's.
// api_set: which calls of the row's API were recorded (lean, all), so that a
// table of the lean set is not read as every call the program made.
constexpr std::array kApiColumns = {
    ownColumn("start_ns"), ownColumn("end_ns"), ownColumn("duration_ns"), ownColumn("domain"),
    ownColumn("name"), ownColumn("thread_id"), ownColumn("correlation_id"), ownColumn("cbid"),
    ownColumn("return_value"), ownColumn("api_set")};
constexpr std::array kNvtxColumns = {
    ownColumn("type"), ownColumn("start_ns"), ownColumn("end_ns"), ownColumn("duration_ns"),
    ownColumn("thread_id"), ownColumn("end_thread_id"), argColumn(Arg::Domain), ownColumn("message"),
    argColumn(Arg::NvtxCategory), argColumn(Arg::Color), ownColumn("payload_type"), argColumn(Arg::Payload),
    ownColumn("range_id"), ownColumn("depth"), argColumn(Arg::Open, "0")};
constexpr std::array kSyncColumns = {
    ownColumn("type"), ownColumn("start_ns"), ownColumn("end_ns"), ownColumn("duration_ns"),
    ownColumn("context"), argColumn(Arg::Stream), argColumn(Arg::Event),
    argColumn("correlation_id", Arg::Correlation)};
constexpr std::array kOverheadColumns = {
    ownColumn("name"), ownColumn("start_ns"), ownColumn("end_ns"), ownColumn("duration_ns"),
    argColumn("thread_id", Arg::Thread), argColumn(Arg::Device)};
constexpr std::array kMemoryColumns = {
    ownColumn("timestamp_ns"), ownColumn("operation"), ownColumn("device"), ownColumn("context"),
    ownColumn("stream"), ownColumn("correlation_id"), ownColumn("address"), ownColumn("bytes"),
    ownColumn("memory_kind"), ownColumn("async"), ownColumn("pool_type"), ownColumn("pool_address")};
constexpr std::array kMemoryPoolColumns = {
    ownColumn("timestamp_ns"), ownColumn("operation"), ownColumn("device"), ownColumn("correlation_id"),
    ownColumn("address"), ownColumn("pool_type"), ownColumn("managed"), ownColumn("size_bytes"),
    ownColumn("utilized_bytes"), ownColumn("release_threshold_bytes"), ownColumn("min_bytes_to_keep")};
constexpr std::array kUvmColumns = {
    ownColumn("kind"), ownColumn("start_ns"), ownColumn("end_ns"), ownColumn("duration_ns"),
    ownColumn("device"), ownColumn("src_id"), ownColumn("dst_id"), ownColumn("address"), ownColumn("bytes"),
    ownColumn("fault_groups"), ownColumn("pc"), ownColumn("cause"), ownColumn("access")};
constexpr std::array kGraphColumns = {
    ownColumn("start_ns"), ownColumn("end_ns"), ownColumn("duration_ns"), ownColumn("device"),
    ownColumn("context"), ownColumn("stream"), argColumn("correlation_id", Arg::Correlation),
    argColumn(Arg::GraphId), ownColumn("end_device")};
constexpr std::array kExternalIdColumns = {
    ownColumn("correlation_id"), ownColumn("kind"), ownColumn("external_id"), ownColumn("scope")};
// Every field of CUPTI's OpenACC data, launch and other records; those of
// another type's record are empty.
constexpr std::array kOpenAccColumns = {
    ownColumn("type"), argColumn("event", Arg::AccEvent), ownColumn("start_ns"), ownColumn("end_ns"),
    ownColumn("duration_ns"), ownColumn("thread_id"), ownColumn("process_id"), argColumn(Arg::AccSrcFile),
    argColumn(Arg::AccLine, "0"), argColumn(Arg::AccEndLine, "0"), argColumn("func_name", Arg::AccFunction),
    argColumn("func_line", Arg::AccFunctionLine, "0"), argColumn("func_end_line", Arg::AccFunctionEndLine, "0"),
    argColumn("parent_construct", Arg::AccConstruct), ownColumn("implicit"), argColumn(Arg::AccVersion),
    argColumn(Arg::AccDeviceType), argColumn(Arg::AccDeviceNumber), argColumn("acc_thread_id", Arg::AccThread),
    argColumn(Arg::Async), argColumn(Arg::AccAsyncMap), argColumn(Arg::Device), argColumn(Arg::Context),
    argColumn(Arg::Stream), argColumn("external_id", Arg::AccOpenAccId, "0"), ownColumn("var_name"),
    argColumn(Arg::Bytes), ownColumn("host_ptr"), ownColumn("device_ptr"), ownColumn("kernel_name"),
    argColumn("num_gangs", Arg::AccGangs), argColumn("num_workers", Arg::AccWorkers),
    argColumn(Arg::AccVectorLength)};
// One row per sample and metric: a long table, as Nsight's GPU_METRICS.
constexpr std::array kGpuMetricColumns = {
    ownColumn("start_ns"), ownColumn("end_ns"), ownColumn("device"), ownColumn("metric"),
    ownColumn("name"), ownColumn("value")};
// clang-format on

template <size_t N>
constexpr CsvColumns table(const std::array<CsvColumn, N>& columns) {
  return {columns.data(), N};
}

std::vector<std::string> names(CsvColumns columns) {
  std::vector<std::string> names;
  for (const CsvColumn& c : columns) names.emplace_back(c.name);
  return names;
}

}  // namespace

CsvColumns csvTableColumns(RecordKind kind) {
  switch (kind) {
    case RecordKind::Kernel:
      return table(kKernelColumns);
    case RecordKind::Memcpy:
      return table(kMemcpyColumns);
    case RecordKind::Memset:
      return table(kMemsetColumns);
    case RecordKind::Api:
      return table(kApiColumns);
    case RecordKind::Nvtx:
      return table(kNvtxColumns);
    case RecordKind::Sync:
      return table(kSyncColumns);
    case RecordKind::Overhead:
      return table(kOverheadColumns);
    case RecordKind::Memory:
      return table(kMemoryColumns);
    case RecordKind::MemoryPool:
      return table(kMemoryPoolColumns);
    case RecordKind::Uvm:
      return table(kUvmColumns);
    case RecordKind::Graph:
      return table(kGraphColumns);
    case RecordKind::ExternalId:
      return table(kExternalIdColumns);
    case RecordKind::OpenAcc:
      return table(kOpenAccColumns);
    case RecordKind::GpuMetric:
      return table(kGpuMetricColumns);
    case RecordKind::Count:
      break;
  }
  return {nullptr, 0};
}

const std::vector<std::string>& csvColumns(RecordKind kind) {
  static const auto all = [] {
    std::vector<std::vector<std::string>> all(kRecordKindCount + 1);
    for (int k = 0; k < kRecordKindCount; ++k) all[k] = names(csvTableColumns(static_cast<RecordKind>(k)));
    return all;
  }();
  const auto k = static_cast<size_t>(kind);
  return k < static_cast<size_t>(kRecordKindCount) ? all[k] : all[kRecordKindCount];
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
    case RecordKind::GpuMetric:
      return "gpu_metrics";
    case RecordKind::Count:
      break;
  }
  return "unknown";
}

}  // namespace cuptitrace
