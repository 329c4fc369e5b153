// The per-kernel summary across ranks (`--report rank_kernels`, the recipe
// kernel_summary): what Nsight Systems' cuda_gpu_kern_sum recipe gives over
// a job, from the per-rank totals of each kernel name (RankSummary::kernels),
// so no trace is held to build it.
//
// Per kernel name: its share of all kernel time, total, instances, mean,
// shortest and longest over every rank; how many ranks ran it; the spread of
// the ranks' own totals (least, median, most) and the rank with the most:
// a kernel whose per-rank totals differ is where one rank does more work.
#pragma once

#include <vector>

#include "reports/rank_summary.h"
#include "reports/report_table.h"

namespace cuptitrace {

ReportTable rankKernelsTable(const std::vector<RankSummary>& ranks);

}  // namespace cuptitrace
