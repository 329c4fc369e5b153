// devices: one row per GPU the trace knows, with what CUPTI said of it (name,
// compute capability, SMs, memory, clock), the name NVTX gave it, its
// contexts (with their NVTX names) and how much GPU work ran there: what
// tells the GPUs of a run apart, and which one the work went to.
#include <map>
#include <set>
#include <string>
#include <utility>

#include "reports/report_data.h"
#include "timeline/track_layout.h"

namespace cuptitrace::reports {
namespace {

struct Work {
  uint64_t kernels = 0, copies = 0, sets = 0;
  std::set<uint32_t> streams;
};

std::string capability(const DeviceInfo& d) {
  if (d.computeMajor == 0) return "";
  return std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor);
}

}  // namespace

ReportTable devicesReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "devices";
  table.title = "Devices";
  table.columns = {{"Device", "device", ColumnType::Count},
                   {"CC", "compute_capability", ColumnType::Text},
                   {"SMs", "multiprocessors", ColumnType::Count},
                   {"Memory", "memory", ColumnType::Bytes},
                   {"MHz", "clock_mhz", ColumnType::Count},
                   {"Kernels", "kernels", ColumnType::Count},
                   {"Copies", "copies", ColumnType::Count},
                   {"Sets", "sets", ColumnType::Count},
                   {"Streams", "streams", ColumnType::Count},
                   {"Contexts", "contexts", ColumnType::Text},
                   {"Name", "name", ColumnType::Name}};

  std::map<uint32_t, Work> work;
  auto count = [&](uint32_t device, uint32_t stream, uint64_t Work::*what) {
    Work& w = work[device];
    ++(w.*what);
    w.streams.insert(stream);
  };
  trace.store.records<KernelRecord>().scan(
      [&](const KernelRecord& r) { count(r.deviceId, r.streamId, &Work::kernels); });
  trace.store.records<MemcpyRecord>().scan(
      [&](const MemcpyRecord& r) { count(r.deviceId, r.streamId, &Work::copies); });
  trace.store.records<MemsetRecord>().scan(
      [&](const MemsetRecord& r) { count(r.deviceId, r.streamId, &Work::sets); });

  // Every device: those CUPTI described, those with contexts, those with work.
  std::map<uint32_t, std::string> contexts;
  for (const DeviceInfo& d : trace.devices) contexts[d.id];
  for (const auto& [device, w] : work) contexts[device];
  for (const ContextInfo& c : trace.contexts) {
    std::string& list = contexts[c.deviceId];
    list += (list.empty() ? "" : ", ") + contextLabel(trace, c.contextId);
  }

  uint64_t undescribed = 0;
  for (const auto& [device, list] : contexts) {
    const DeviceInfo* info = trace.findDevice(device);
    const Work& w = work[device];
    if (info == nullptr && w.kernels + w.copies + w.sets != 0) ++undescribed;
    std::vector<Cell> row;
    row.push_back(Cell::integer(device));
    row.push_back(info && info->computeMajor ? Cell::text(capability(*info)) : Cell::none());
    row.push_back(info && info->multiprocessors ? Cell::integer(info->multiprocessors) : Cell::none());
    row.push_back(info && info->globalMemoryBytes ? Cell::integer(info->globalMemoryBytes) : Cell::none());
    row.push_back(info && info->coreClockKHz ? Cell::integer((info->coreClockKHz + 500) / 1000)
                                             : Cell::none());
    row.push_back(Cell::integer(w.kernels));
    row.push_back(Cell::integer(w.copies));
    row.push_back(Cell::integer(w.sets));
    row.push_back(Cell::integer(w.streams.size()));
    row.push_back(list.empty() ? Cell::none() : Cell::text(list));
    // As the timeline's GPU process is named, less the "GPU n" the Device column says.
    row.push_back(Cell::text(gpuDescription(trace, device)));
    table.rows.push_back(std::move(row));
  }
  if (!table.rows.empty())
    table.notes.push_back(
        "Name: the NVTX name of the device (nvtxNameCudaDevice) or CUPTI's, with its details; "
        "Contexts: each context's NVTX name (nvtxNameCuContext) or number; Streams: streams "
        "with GPU work");
  if (undescribed)
    table.notes.push_back(std::to_string(undescribed) +
                          " devices ran work that CUPTI never described (no device record)");
  return table;
}

}  // namespace cuptitrace::reports
