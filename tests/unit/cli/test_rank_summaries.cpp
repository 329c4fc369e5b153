// The two halves of the reports across ranks run apart: `cuptitrace
// summarize` then `cuptitrace stats --summaries` print what `cuptitrace
// stats` prints over the same traces, from native traces or the tracer's
// SQLite databases; a trace that cannot be read is named, and the reports say
// how many ranks they cover.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "cli/convert_command.h"
#include "cli/rank_reader.h"
#include "cli/rank_sqlite.h"
#include "cli/stats_command.h"
#include "cli/summarize_command.h"
#include "exporters/native/native.h"
#include "rank_fixture.h"
#include "temp_dir.h"

namespace cuptitrace {
namespace {

constexpr uint64_t us = 1000;

struct Run {
  int rc;
  std::string out, err;
};

Run stats(std::vector<std::string> args) {
  Run r;
  r.rc = cli::runStats(args, r.out, r.err);
  return r;
}

// Four ranks (rank 3 late in every step), as t.<rank>.native, and the same as t.<rank>.sqlite.
class SavedRanks {
 public:
  SavedRanks() {
    const std::vector<std::vector<uint64_t>> compute = {{200 * us, 250 * us, 200 * us, 220 * us},
                                                        {300 * us, 280 * us, 310 * us, 290 * us},
                                                        {250 * us, 260 * us, 240 * us, 270 * us},
                                                        {900 * us, 950 * us, 920 * us, 940 * us}};
    for (int64_t r = 0; r < 4; ++r) {
      Trace t;
      testing::fillRank(t, r, 4, compute, 1000 + static_cast<uint32_t>(r));
      std::ofstream out(native(r), std::ios::binary);
      writeNative(t, out);
    }
  }
  std::string native(int64_t r) const { return dir_.path("t." + std::to_string(r) + ".native"); }
  std::string sqlite(int64_t r) const { return dir_.path("t." + std::to_string(r) + ".sqlite"); }
  std::string path(const std::string& name) const { return dir_.path(name); }

 private:
  testing::TempDir dir_;
};

TEST_CASE("summaries: summarize then stats --summaries prints what stats prints", "[cli][ranks]") {
  SavedRanks saved;
  const std::string pattern = saved.path("t.*.native");
  for (const char* format : {"table", "csv", "json"}) {
    const Run direct = stats({pattern, "--format", format});
    REQUIRE(direct.rc == 0);
    std::string blobs, err;
    REQUIRE(cli::runSummarize({pattern}, blobs, err) == 0);
    CHECK(err.empty());
    const std::string file = saved.path("s.bin");
    REQUIRE(cli::runSummarize({pattern, "-o", file}, blobs, err) == 0);
    const Run carried = stats({"--summaries", file, "--format", format});
    CHECK(carried.rc == 0);
    CHECK(carried.out == direct.out);
    CHECK(carried.err == direct.err);
  }
  CHECK_THAT(stats({pattern}).out, Catch::Contains("rank 3 is the straggler of AllReduce"));
  CHECK_THAT(stats({pattern}).out, Catch::Contains("GPU kernels across ranks"));
}

TEST_CASE("summaries: a trace that cannot be read is named once, the others reported", "[cli][ranks]") {
  SavedRanks saved;
  {
    std::ifstream in(saved.native(2), std::ios::binary);
    std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(saved.native(2), std::ios::binary | std::ios::trunc);
    out << whole.substr(0, whole.size() / 2);
  }
  const std::string file = saved.path("s.bin");
  std::string out, err;
  REQUIRE(cli::runSummarize({saved.path("t.*.native"), saved.path("t.9.native"), "-o", file}, out, err) == 0);
  CHECK_THAT(err, Catch::Contains(saved.native(2)));
  CHECK_THAT(err, Catch::Contains("cannot open " + saved.path("t.9.native")));
  const Run r = stats({"--summaries", file});
  CHECK(r.rc == 0);
  size_t named = 0;
  for (size_t at = 0; (at = r.err.find(saved.native(2), at)) != std::string::npos; ++at) ++named;
  CHECK(named == 1);
  CHECK_THAT(r.err, Catch::Contains("These reports cover 3 of 5 ranks: 2 traces could not be read"));
  CHECK_THAT(r.out, Catch::Contains("These reports cover 3 of 5 ranks"));
  CHECK_THAT(r.out, Catch::Contains("rank 3 is the straggler"));
  // Damaged summaries are not a rank's failure: the whole input is refused.
  std::ofstream(saved.path("bad.bin"), std::ios::binary) << "CTRS\x02";
  const Run bad = stats({"--summaries", saved.path("bad.bin")});
  CHECK(bad.rc == 1);
  CHECK_THAT(bad.err, Catch::Contains("bad.bin: truncated rank summary at byte 0"));
}

TEST_CASE("summaries: a rank's SQLite database gives its native trace's reports", "[cli][ranks][sqlite]") {
  SavedRanks saved;
  std::vector<std::string> natives, sqlites;
  for (int64_t r = 0; r < 4; ++r) {
    std::string out, err;
    REQUIRE(cli::runConvert({saved.native(r), "--to", "sqlite"}, out, err) == 0);
    natives.push_back(saved.native(r));
    sqlites.push_back(saved.sqlite(r));
  }
  const RankReadResult a = summarizeTraceFiles(natives, 2);
  const RankReadResult b = summarizeTraceFiles(sqlites, 2);
  REQUIRE(a.errors.empty());
  REQUIRE(b.errors.empty());
  REQUIRE(b.summaries.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    const RankSummary& n = a.summaries[i];
    const RankSummary& s = b.summaries[i];
    CHECK(s.rank == n.rank);  // from the file name: the database holds no rank
    CHECK(s.host == n.host);
    CHECK(s.pid == n.pid);
    CHECK(s.processName == n.processName);
    CHECK((s.gpus == n.gpus && s.gpuRecords == n.gpuRecords && s.computeNs == n.computeNs && s.commNs == n.commNs &&
           s.copyNs == n.copyNs && s.idleNs == n.idleNs && s.spanNs == n.spanNs && s.overlappedNs == n.overlappedNs &&
           s.dropped == n.dropped));
    CHECK(s.kernels.size() == n.kernels.size());
    REQUIRE(s.collectives.at("AllReduce").size() == n.collectives.at("AllReduce").size());
    for (size_t k = 0; k < s.collectives.at("AllReduce").size(); ++k)
      CHECK(s.collectives.at("AllReduce")[k].durationNs == n.collectives.at("AllReduce")[k].durationNs);
  }
  for (const char* format : {"csv", "json"}) {
    const Run fromNative = stats({saved.path("t.*.native"), "--format", format});
    const Run fromSqlite = stats({saved.path("t.*.sqlite"), "--format", format});
    CHECK(fromSqlite.rc == 0);
    CHECK(fromSqlite.out == fromNative.out);
  }
  // A file that is no database and no trace is named.
  std::ofstream(saved.path("t.7.sqlite"), std::ios::binary) << std::string("SQLite format 3\0garbage", 23);
  const Run garbage = stats({saved.path("t.*.sqlite")});
  CHECK(garbage.rc == 1);
  CHECK_THAT(garbage.err, Catch::Contains(saved.path("t.7.sqlite") + ": "));
}

TEST_CASE("summaries: the rank a file name gives", "[cli][ranks]") {
  CHECK(rankFromFileName("runs/t.12.sqlite") == 12);
  CHECK(rankFromFileName("t.0.native") == 0);
  CHECK(rankFromFileName("dir.3/t.sqlite") == -1);
  CHECK(rankFromFileName("t.pid42.sqlite") == -1);
  CHECK(rankFromFileName("12.sqlite") == -1);
  CHECK(rankFromFileName("t..sqlite") == -1);
}

}  // namespace
}  // namespace cuptitrace
