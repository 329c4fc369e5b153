#include "cli/rank_reader.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <memory>
#include <optional>
#include <thread>

#include "core/trace.h"
#include "exporters/native.h"

namespace cuptitrace {

RankReadResult summarizeTraceFiles(const std::vector<std::string>& paths, unsigned workers) {
  std::vector<std::optional<RankSummary>> slots(paths.size());
  std::vector<std::string> errors(paths.size());
  std::atomic<size_t> next{0};
  // Each worker owns the slots it takes: no lock needed.
  auto work = [&] {
    for (size_t i = next++; i < paths.size(); i = next++) {
      std::ifstream in(paths[i], std::ios::binary);
      if (!in) {
        errors[i] = "cannot open " + paths[i];
        continue;
      }
      // One trace at a time per worker, freed before the next is read.
      auto trace = std::make_unique<Trace>();
      std::string error;
      if (!readNative(in, *trace, error)) {
        errors[i] = paths[i] + " is not a readable cuptitrace trace: " + error;
        continue;
      }
      slots[i] = summarizeRank(*trace, paths[i]);
    }
  };
  const unsigned n = std::max(1u, std::min<unsigned>(workers, static_cast<unsigned>(paths.size())));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < n; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();

  RankReadResult result;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (slots[i]) result.summaries.push_back(std::move(*slots[i]));
    if (!errors[i].empty()) result.errors.push_back(std::move(errors[i]));
  }
  return result;
}

}  // namespace cuptitrace
