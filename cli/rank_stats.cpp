#include "cli/rank_stats.h"

#include <fstream>
#include <iostream>
#include <iterator>

#include "reports/rank_reports.h"

namespace cuptitrace::cli {

bool readRankSummaries(const std::string& path, RankBlobs& blobs, std::string& error) {
  std::string data;
  if (path == "-") {
    data.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      error = "cannot open " + path;
      return false;
    }
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (!decodeRankBlobs(data, blobs, error)) {
    error = (path == "-" ? std::string("standard input") : path) + ": " + error;
    return false;
  }
  return true;
}

int reportAcrossRanks(std::vector<RankSummary> summaries, const std::vector<RankFailure>& failures,
                      const std::vector<std::string>& names, ReportFormat format, const RenderOptions& render,
                      std::string& out, std::string& err) {
  for (const RankFailure& f : failures) err += "cuptitrace stats: " + f.error + "\n";
  std::vector<std::string> skipped;
  const std::vector<RankSummary> ranks = orderRanks(std::move(summaries), skipped);
  for (const std::string& s : skipped) err += "cuptitrace stats: skipped " + s + "\n";
  if (ranks.empty()) {
    err += "cuptitrace stats: none of the traces holds GPU work\n";
    return 1;
  }
  std::vector<ReportTable> tables = buildRankReports(ranks, names, skipped);
  if (!failures.empty()) {
    // Said in every table (a reader may print one) and on stderr (CSV has no notes).
    const std::string covers = "These reports cover " + std::to_string(ranks.size()) + " of " +
                               std::to_string(ranks.size() + failures.size()) + " ranks: " +
                               std::to_string(failures.size()) +
                               (failures.size() == 1 ? " trace" : " traces") + " could not be read";
    err += "cuptitrace stats: " + covers + "\n";
    for (ReportTable& t : tables) {
      std::vector<std::string> notes = {covers + "."};
      for (const RankFailure& f : failures) notes.push_back("Not covered: " + f.error);
      notes.insert(notes.end(), t.notes.begin(), t.notes.end());
      t.notes = std::move(notes);
    }
  }
  out += renderTables(tables, format, render);
  return 0;
}

}  // namespace cuptitrace::cli
