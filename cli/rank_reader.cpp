#include "cli/rank_reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <thread>

#include "cli/rank_sqlite.h"
#include "core/trace.h"
#include "exporters/native/native.h"

namespace cuptitrace {

bool summarizeTraceFile(const std::string& path, RankSummary& summary, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return false;
  }
  char head[16] = {};
  in.read(head, sizeof head);
  if (in.gcount() == sizeof head && std::memcmp(head, "SQLite format 3", 16) == 0) {
    in.close();
    return summarizeSqliteRank(path, summary, error);
  }
  in.clear();
  in.seekg(0);
  // One trace at a time, freed before the next is read.
  auto trace = std::make_unique<Trace>();
  if (!readNative(in, *trace, error)) {
    error = path + " is not a readable cuptitrace trace: " + error;
    return false;
  }
  summary = summarizeRank(*trace, path);
  return true;
}

RankReadResult summarizeTraceFiles(const std::vector<std::string>& paths, unsigned workers) {
  std::vector<std::optional<RankSummary>> slots(paths.size());
  std::vector<std::string> errors(paths.size());
  std::atomic<size_t> next{0};
  // Each worker owns the slots it takes: no lock needed.
  auto work = [&] {
    for (size_t i = next++; i < paths.size(); i = next++) {
      RankSummary s;
      std::string error;
      if (summarizeTraceFile(paths[i], s, error))
        slots[i] = std::move(s);
      else
        errors[i] = error;
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
