// The findings of training loops: NCCL's communication (never an idle or a
// busy stream), a GPU busy less than half the steps, steps bound by the data
// loader or by launches, and matrix kernels that leave the Tensor Cores idle.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "core/nccl_kernel.h"
#include "reports/findings.h"
#include "reports/gpu_summary.h"
#include "reports/kernel_traits.h"
#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

// NCCL's kernels take at least this share of a device's kernel time.
constexpr double kCommunicationPct = 30.0;
// A device busy with kernels less than this share of the steps (or of its span).
constexpr double kLowUtilizationPct = 50.0;
constexpr uint64_t kLowUtilizationMinKernels = 10;
// The data loader takes at least this share of the average step.
constexpr double kDataLoaderPct = 15.0;
// Launch-bound step: kernels cover less than this share of it ...
constexpr double kLaunchBoundKernelPct = 40.0;
// ... while CUDA calls and PyTorch's operators on the host take at least this share.
constexpr double kLaunchBoundHostPct = 50.0;
// Matrix kernels without Tensor Cores take at least this share of kernel time.
constexpr double kNoTensorCorePct = 10.0;

bool isMatrixKernel(const std::string& name) {
  std::string lower;
  for (const char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"gemm", "gemv", "conv", "fprop", "dgrad", "wgrad", "matmul", "sgemm", "nvjet"})
    if (lower.find(word) != std::string::npos) return true;
  return false;
}

void communication(ReportData& data, std::vector<Finding>& out) {
  const Trace& trace = data.trace();
  struct Dev {
    uint64_t kernels = 0, nccl = 0, ncclCount = 0;
    std::map<std::string, uint64_t> collectives;
    std::vector<uint32_t> ids;
  };
  std::map<uint32_t, Dev> devs;
  std::vector<int8_t> isNccl;
  trace.store.records<KernelRecord>().scan([&](const KernelRecord& k) {
    if (!hasTime(k.start, k.end)) return;
    Dev& d = devs[k.deviceId];
    d.kernels += k.end - k.start;
    if (k.name >= isNccl.size()) isNccl.resize(static_cast<size_t>(k.name) + 1, -1);
    if (isNccl[k.name] < 0) isNccl[k.name] = isNcclKernel(trace.strings.get(k.name)) ? 1 : 0;
    if (isNccl[k.name] == 0) return;
    d.nccl += k.end - k.start;
    ++d.ncclCount;
    NcclKernelInfo info;
    parseNcclKernel(trace.strings.get(k.name), info);
    d.collectives[info.collective] += k.end - k.start;
    if (d.ids.size() < kMaxExamples) d.ids.push_back(k.correlationId);
  });
  for (const auto& [id, d] : devs) {
    const double share = percent(d.nccl, d.kernels);
    if (d.ncclCount == 0 || share < kCommunicationPct) continue;
    Finding f;
    f.title = "Communication takes " + pct(share) + " of GPU " + std::to_string(id) + "'s kernel time";
    f.details = "NCCL's kernels ran " + dur(d.nccl) + " of the device's " + dur(d.kernels) +
                " of kernels (" + std::to_string(d.ncclCount) +
                " collectives). A collective's kernel runs until every rank has joined it, so this time "
                "is mostly waiting: for a slower rank (a straggler) or for the interconnect, not a stream "
                "doing work. Compare the ranks (cuptitrace stats 'trace.*.native' names the straggler), "
                "and overlap communication with computation (DDP's bucketing, larger buckets).";
    std::string parts;
    for (const auto& [name, t] : d.collectives) parts += (parts.empty() ? "" : ", ") + name + " " + dur(t);
    f.records = parts + "; " + correlations(d.ids);
    out.push_back(std::move(f));
  }
}

void lowUtilization(ReportData& data, std::vector<Finding>& out) {
  for (const DeviceSummary& d : data.deviceSummaries()) {
    // Without steps, the idle-between-kernels finding speaks of the device's span.
    if (!d.overSteps || d.kernels < kLowUtilizationMinKernels || d.span == 0) continue;
    const double util = percent(d.busy, d.span);
    if (util >= kLowUtilizationPct) continue;
    Finding f;
    f.title = "GPU " + std::to_string(d.deviceId) + " busy only " + pct(util) + " of the steps";
    f.details = "Kernels covered " + dur(d.busy) + " of " + dur(d.span) +
                " from the first step to the last (steps: " + data.steps().rule + ")" +
                ". The rest of the time the GPU waited for the host: see the breakdown report for where "
                "the steps' time went (data loading, launches, synchronization).";
    if (d.occupancyKnown)
      f.details += " Est. SM efficiency " + pct(100.0 * d.smEfficiency) + ", est. achieved occupancy " +
                   pct(100.0 * d.achievedOccupancy) + ".";
    f.records = std::to_string(d.kernels) + " kernels on device " + std::to_string(d.deviceId);
    out.push_back(std::move(f));
  }
}

// The breakdown's numbers per step: data-loader-bound and launch-bound steps.
void boundSteps(ReportData& data, std::vector<Finding>& out) {
  const std::vector<Step>& steps = data.steps().steps;
  if (steps.empty()) return;
  const auto& splits = data.stepSplits();
  uint64_t total = 0, loader = 0;
  std::vector<size_t> launchBound;
  size_t worstLoader = 0;
  double worstLoaderShare = -1;
  for (size_t i = 0; i < steps.size(); ++i) {
    const uint64_t len = steps[i].end - steps[i].start;
    const auto& c = splits[i];
    const uint64_t dl = c[static_cast<size_t>(Category::DataLoader)];
    total += len;
    loader += dl;
    if (percent(dl, len) > worstLoaderShare) worstLoaderShare = percent(dl, len), worstLoader = i;
    const uint64_t kernels = c[static_cast<size_t>(Category::Kernel)] + c[static_cast<size_t>(Category::Communication)];
    const uint64_t host = c[static_cast<size_t>(Category::RuntimeApi)] + c[static_cast<size_t>(Category::CpuExec)];
    if (percent(kernels, len) < kLaunchBoundKernelPct && percent(host, len) >= kLaunchBoundHostPct)
      launchBound.push_back(i);
  }
  if (percent(loader, total) >= kDataLoaderPct) {
    Finding f;
    f.title = "Steps wait for the data loader (" + pct(percent(loader, total)) + " of step time)";
    f.details = "The data loader's __next__ took " + dur(loader) + " of the " + std::to_string(steps.size()) +
                " steps' " + dur(total) +
                " while the GPU had nothing to do. Use more DataLoader workers (num_workers), "
                "pin_memory=True, prefetch_factor, or lighter transforms.";
    f.records = "worst: " + steps[worstLoader].label + " (" + pct(worstLoaderShare) + ")";
    out.push_back(std::move(f));
  }
  if (!launchBound.empty()) {
    Finding f;
    f.title = std::to_string(launchBound.size()) + " of " + std::to_string(steps.size()) + " steps are launch-bound";
    f.details = "In these steps kernels covered less than " + pct(kLaunchBoundKernelPct) +
                " of the time while CUDA calls and PyTorch's operators on the host took at least " +
                pct(kLaunchBoundHostPct) +
                ": the GPU waits for the host to launch work. Larger batches, fused operators "
                "(torch.compile) or CUDA graphs (torch.compile mode=\"reduce-overhead\") cut the launches.";
    for (size_t i = 0; i < launchBound.size() && i < kMaxExamples; ++i)
      f.records += (i ? "; " : "") + steps[launchBound[i]].label;
    out.push_back(std::move(f));
  }
}

void missingTensorCores(ReportData& data, std::vector<Finding>& out) {
  uint64_t total = 0, plain = 0;
  std::vector<const Group*> top;
  for (const Group& g : data.kernels()) {
    total += g.time.total;
    if (!isMatrixKernel(g.name) || usesTensorCores(g.name)) continue;
    plain += g.time.total;
    top.push_back(&g);
  }
  if (plain == 0 || percent(plain, total) < kNoTensorCorePct) return;
  std::sort(top.begin(), top.end(), [](const Group* a, const Group* b) { return a->time.total > b->time.total; });
  Finding f;
  f.title = "Matrix kernels without Tensor Cores take " + pct(percent(plain, total)) + " of kernel time";
  f.details = "GEMM and convolution kernels ran " + dur(plain) + " of " + dur(total) +
              " on the SMs' ordinary units (full float32, by their names). Tensor Cores run them several "
              "times faster: allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, "
              "torch.backends.cudnn.allow_tf32 = True) or use mixed precision (torch.autocast with bfloat16).";
  for (size_t i = 0; i < top.size() && i < kMaxExamples; ++i)
    f.records += (i ? "; " : "") + displayName(top[i]->name, 50) + " (" + dur(top[i]->time.total) + ")";
  out.push_back(std::move(f));
}

}  // namespace

void pytorchFindings(ReportData& data, std::vector<Finding>& out) {
  communication(data, out);
  lowUtilization(data, out);
  boundSteps(data, out);
  missingTensorCores(data, out);
}

}  // namespace cuptitrace::reports
