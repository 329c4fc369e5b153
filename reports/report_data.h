// What the reports share, computed once and only when a report asks for it:
// per-name groups of each record kind with their exact statistics, the
// records left out of the times, and how busy each device and each kind of
// work was. Busy time is measured in sweeps over the records a window of
// start times at a time (slice_windows.h, busy_sweep.h), never holding an
// interval per record. Internal to the reports (reports.cpp and report_*.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/demangle.h"
#include "core/side_task.h"
#include "core/trace.h"
#include "reports/reports.h"
#include "reports/gpu_summary.h"
#include "reports/scratch_values.h"
#include "reports/stats.h"
#include "timeline/slice_windows.h"
#include "timeline/steps.h"

namespace cuptitrace::reports {

// Examples of records named in notes and findings.
inline constexpr size_t kMaxExamples = 3;

// A record has a time when its end is known and not before its start.
inline bool hasTime(uint64_t start, uint64_t end) { return end != 0 && end >= start; }

// One row's worth of records: a kernel name, an API name, a copy kind, a range.
struct Group {
  std::string name;      // as shown: demangled kernel, "[CUDA memcpy HtoD]", "domain:range"
  uint64_t records = 0;  // every record of the group (Calls, Instances)
  Summary time;          // over the records with a time
  // Memory operations.
  Summary bytes;  // over every record (a copy's size is known without its time)
  uint64_t timedBytes =
      0;  // bytes of the records with a time: throughput = timedBytes / time.total
  // Kernels by launch configuration.
  std::string grid;   // "128x1x1"
  std::string block;  // "256x1x1"
  // Kernels by Python line.
  std::string python;  // "train.py:42 forward <- train.py:90 main"
  // NVTX ranges.
  std::string style;  // "PushPop", "StartEnd"
  uint64_t open = 0;  // ranges still open at exit (their time runs to the end of the trace)
  // Kernels shorter than kTinyKernelNs (findings).
  uint64_t tiny = 0;
  // First records of the group, for findings ("correlation 17").
  std::vector<uint32_t> exampleIds;
};

// Records of a kind left out of the times, with a few named.
struct Untimed {
  uint64_t count = 0;
  std::vector<std::string> examples;  // "_Z3addPfS_S_i (correlation 17)"
};

// Kernels shorter than this are "tiny": about what launching one costs.
inline constexpr uint64_t kTinyKernelNs = 10'000;

struct DeviceBusy {
  uint32_t deviceId = 0;
  uint64_t kernels = 0;                  // kernel records with a time
  uint64_t records = 0;                  // kernel, memcpy and memset records with a time
  uint64_t firstStart = 0, lastEnd = 0;  // all GPU work
  uint64_t kernelFirstStart = 0, kernelLastEnd = 0;  // kernels only
  uint64_t kernelBusy = 0;                           // length of the union of kernel intervals
  uint64_t gpuBusy = 0;  // length of the union of kernel, memcpy and memset intervals
  Gaps gaps;             // between any GPU work
  Gaps kernelGaps;       // between kernels
};

// Breakdown categories, in the order they claim time: an instant belongs to
// the first category busy at it, so time under a kernel is Kernel even when a
// copy or an API call overlaps it (as the PyTorch profiler's step breakdown).
// The categories are the PyTorch profiler's overview's, with Sync apart from
// the rest of the runtime: Communication is NCCL's kernels, DataLoader the
// data loader's __next__ and CPU Exec PyTorch's other operators (torch_ops.h).
enum class Category : uint8_t {
  Kernel, Memcpy, Memset, Communication, Sync, RuntimeApi, DataLoader, CpuExec, Count
};
inline constexpr size_t kCategories = static_cast<size_t>(Category::Count);

struct Timeline {
  bool any = false;
  uint64_t start = 0, end = 0;  // earliest start and latest end of every timed record
};
using CategoryTimes = std::array<uint64_t, kCategories + 1>;  // by Category, then Other

// Time of each category (and Other, last) in each of `windows` (which may
// overlap), given each category's merged busy intervals (sorted, disjoint)
// within [from, to); only the parts of the windows inside [from, to) count.
std::vector<CategoryTimes> splitByCategory(
    const std::array<std::vector<Interval>, kCategories>& busy,
    const std::vector<Interval>& windows, uint64_t from, uint64_t to);

// Where the sweeps over the records (ReportData's busy times and splits)
// read: the bounds of windows of start times, each starting at most
// windowRecords timed records, and each chunk's starts per kind swept, so a
// window's pass skips the chunks with none. Made once, for every sweep.
struct SweepPlan {
  std::vector<uint64_t> bounds;
  bool planned = false;   // the chunks' starts are noted (else every chunk is read)
  ChunkStarts starts[6];  // kernels, copies, sets, API calls, synchronizations, NVTX
};

class ReportData {
 public:
  ReportData(const Trace& trace, const ReportOptions& options) : trace_(trace), options_(options) {}
  ~ReportData();
  ReportData(const ReportData&) = delete;
  ReportData& operator=(const ReportData&) = delete;

  // For every report at once, with cores to spare (report_data_prepare.cpp):
  // the two sweeps over the timed records, the devices' busy times and the
  // split of time by category (over the steps, or the whole run), and the
  // per-name groups of the kernels and of the CUDA calls start on threads of
  // their own while the tables that need none of them are made; their
  // accessors wait for them. Only for a trace whose sweeps are planned in
  // windows (a large one): a small one is quick on one thread.
  void prepare();

  const Trace& trace() const { return trace_; }
  const ReportOptions& options() const { return options_; }

  const std::string& kernelName(StringId id);   // demangled
  const std::vector<Group>& kernels();          // per kernel name
  const std::vector<Group>& kernelsByConfig();  // per kernel name, grid and block
  const std::vector<Group>& copies();           // per copy kind, and all memsets: nvprof's rows
  const std::vector<Group>& memoryOps();        // per copy kind and memory kinds; memsets per kind
  const std::vector<Group>& api();              // per API name, runtime and driver calls
  uint64_t nestedDriverCalls();                 // driver calls left out of api(): made in a runtime call
  const std::vector<Group>& osrt();             // per C library function (the osrt activity)
  const std::vector<Group>& ranges();           // per NVTX domain, message and style
  const Untimed& untimed(RecordKind kind);      // kernel, memcpy, memset, api, nvtx
  const Untimed& osrtUntimed();                 // osrt calls share RecordKind::Api
  uint64_t nvtxMarks();                         // instants, not ranges
  const std::vector<std::string>& openRangeExamples();
  const std::vector<DeviceBusy>& devices();     // and deviceSummaries(): one sweep
  const Timeline& timeline();
  // Time of each category in each window (the breakdown), in one sweep over
  // the kernels, copies, sets, API calls and synchronization records.
  std::vector<CategoryTimes> splitTime(const std::vector<Interval>& windows);
  // That split over the whole run, from its first record to its last.
  const CategoryTimes& wholeSplit();
  // The steps, found once (steps.h), and the time of each category in each
  // (the breakdown's and the findings' sweep, made once); the warm-up's, when
  // there is one, after the steps'.
  const Steps& steps();
  const std::vector<CategoryTimes>& stepSplits();
  // Per device over the steps (gpu_summary.h): made in the same sweep as
  // devices(), with the steps found first.
  const std::vector<DeviceSummary>& deviceSummaries();

 private:
  void ensureDevices();
  void computeDevices();  // ensureDevices' sweep, on the thread prepare() starts or this one
  void computeSplits();   // the steps' splits and, without steps, the whole run's
  std::vector<CategoryTimes> makeStepSplits();
  CategoryTimes makeWholeSplit();
  SweepPlan& sweepPlan();
  // Per-name groups of the API records of one side: CUDA calls or C library
  // calls, their durations placed in `scratch`.
  std::vector<Group> callGroups(bool osrt, Untimed& untimed, ScratchValues& scratch);
  // kernels() and api() with the names and the room for durations given:
  // prepare() makes them on threads of their own, each with its own, freed
  // when it is done.
  std::vector<Group> makeKernels(DemangleCache& names, ScratchValues& scratch);
  void makeApi(ScratchValues& scratch);

  const Trace& trace_;
  const ReportOptions& options_;
  DemangleCache demangler_;
  ScratchValues scratch_;  // a kind's durations, while its groups are made
  std::vector<const std::string*> demangled_;
  std::optional<std::vector<Group>> kernels_, kernelsByConfig_, copies_, memoryOps_, api_, osrt_,
      ranges_;
  std::array<Untimed, kRecordKindCount> untimed_{};
  Untimed osrtUntimed_;
  std::array<bool, kRecordKindCount> untimedDone_{};
  uint64_t marks_ = 0;
  uint64_t nestedDriverCalls_ = 0;
  std::vector<std::string> openExamples_;
  std::optional<std::vector<DeviceBusy>> devices_;
  std::optional<Timeline> timeline_;
  std::optional<SweepPlan> plan_;
  std::optional<Steps> steps_;
  std::optional<std::vector<CategoryTimes>> stepSplits_;
  std::optional<std::vector<DeviceSummary>> deviceSummaries_;
  std::optional<CategoryTimes> wholeSplit_;
  // The devices' sweep names kernels with a demangler of its own.
  DemangleCache devicesDemangler_;
  // prepare()'s sweeps and groups, each on a thread of its own (last: their
  // threads end before what they use goes).
  std::optional<SideTask> devicesTask_, splitsTask_, kernelsTask_, apiTask_;
};

// Sorts rows by total time descending, ties by name ascending.
void sortByTotal(std::vector<Group>& groups);
// "Time(%)": part of whole, in percent; 0 when whole is 0.
double percent(uint64_t part, uint64_t whole);
// Sum of the groups' total times.
uint64_t totalTime(const std::vector<Group>& groups);
// A per-name time table (sorted by total): the time statistics, then the name.
ReportTable timeTable(const char* name, const char* title, std::vector<Group> groups,
                      const char* countTitle, const char* countKey, const char* nameTitle);

// The report builders (report_*.cpp).
ReportTable gpuActivitiesReport(ReportData& data);
ReportTable apiCallsReport(ReportData& data);
ReportTable kernelsReport(ReportData& data);
ReportTable memoryTimeReport(ReportData& data);
ReportTable memorySizeReport(ReportData& data);
ReportTable nvtxReport(ReportData& data);
ReportTable utilizationReport(ReportData& data);
ReportTable breakdownReport(ReportData& data);
ReportTable coverageReport(ReportData& data);
ReportTable findingsReport(ReportData& data);
ReportTable gpuMemoryReport(ReportData& data);  // report_memory.cpp
ReportTable allocationsReport(ReportData& data);
ReportTable leaksReport(ReportData& data);
ReportTable graphsReport(ReportData& data);       // report_graphs.cpp
ReportTable uvmReport(ReportData& data);          // report_uvm.cpp
ReportTable osrtReport(ReportData& data);         // report_osrt.cpp
ReportTable externalIdsReport(ReportData& data);  // report_external_ids.cpp
ReportTable devicesReport(ReportData& data);      // report_devices.cpp
ReportTable openAccReport(ReportData& data);      // report_openacc.cpp
ReportTable operatorsReport(ReportData& data);    // report_operators.cpp
ReportTable gpuSummaryReport(ReportData& data);   // report_gpu_kernels.cpp
ReportTable gpuKernelsReport(ReportData& data);

// Columns and cells that several reports share.
std::vector<Column> timeStatColumns(const char* countTitle, const char* countKey);
void appendTimeStats(std::vector<Cell>& row, const Group& g, uint64_t reportTotal);
std::string untimedNote(const Untimed& u, const char* what);

}  // namespace cuptitrace::reports
