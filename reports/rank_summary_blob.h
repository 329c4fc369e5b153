// A RankSummary as bytes, so the per-rank step (`cuptitrace summarize`, run
// where each trace is, for instance as a Dask task) and the cross-rank step
// (`cuptitrace stats --summaries`) can run in different processes and on
// different machines, and the reports stay those of `cuptitrace stats`:
// both steps are this project's C++, the bytes only carry a summary across.
//
// A stream is a sequence of blobs, each
//   "CTRS"  u16 version  u16 kind  u64 payload length  payload
// little-endian. Kind 0 is a summary; kind 1 a trace that could not be read
// (its file and why), which travels with the others so that the reports can
// say how many ranks they cover. A summary's payload holds its strings
// (u32 length, bytes), its totals, then per collective its name and
// (start, duration) pairs, 16 bytes per instance, then per kernel name its
// totals. A reader refuses another version with a message naming both.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reports/rank_summary.h"

namespace cuptitrace {

inline constexpr uint16_t kRankSummaryVersion = 1;

// A trace that could not be summarized.
struct RankFailure {
  std::string file;
  std::string error;  // one line
};

// What a stream of blobs holds, in its order.
struct RankBlobs {
  std::vector<RankSummary> summaries;
  std::vector<RankFailure> failures;
};

std::string encodeRankSummary(const RankSummary& summary);
std::string encodeRankFailure(const RankFailure& failure);

// Appends what `data` holds to `out`. On a damaged stream, returns false with
// `error` saying what is wrong and at which byte; blobs before it are kept.
bool decodeRankBlobs(std::string_view data, RankBlobs& out, std::string& error);

}  // namespace cuptitrace
