// Every text output is valid UTF-8, whatever bytes the program's names held:
// invalid sequences become U+FFFD in the CSV tables and the SQLite text, as
// they do in the JSON. Readers decode these files as UTF-8 and stop at the
// first invalid byte (Python's csv module and pandas, Python's sqlite3).
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "core/config.h"
#include "exporters/export_all.h"
#include "exporters/sqlite/sqlite.h"
#include "temp_dir.h"
#include "utf8_check.h"

namespace cuptitrace {
namespace {

namespace fs = std::filesystem;
using namespace testing;

std::string fileText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every file exportAll wrote with `suffix`, by name.
std::map<std::string, std::string> written(const ExportResult& r, const std::string& suffix) {
  std::map<std::string, std::string> files;
  for (const std::string& path : r.written) {
    const std::string name = fs::path(path).filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      files[name] = fileText(path);
  }
  return files;
}

// Every TEXT value of every table of the database, each on a line of its own
// (as SQLite holds it: sqlite3_column_text does not convert UTF-8 text).
std::string sqliteText(const std::string& path, std::string& invalid) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  std::vector<std::string> tables;
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &s, nullptr) ==
          SQLITE_OK);
  while (sqlite3_step(s) == SQLITE_ROW) tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
  sqlite3_finalize(s);
  std::string all;
  for (const std::string& table : tables) {
    REQUIRE(sqlite3_prepare_v2(db, ("SELECT * FROM " + table).c_str(), -1, &s, nullptr) == SQLITE_OK);
    while (sqlite3_step(s) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(s); ++c) {
        if (sqlite3_column_type(s, c) != SQLITE_TEXT) continue;
        const std::string value(reinterpret_cast<const char*>(sqlite3_column_text(s, c)),
                                static_cast<size_t>(sqlite3_column_bytes(s, c)));
        if (!wellFormedUtf8(value)) invalid += table + "." + sqlite3_column_name(s, c) + " ";
        all += value + "\n";
      }
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return all;
}

TEST_CASE("text outputs: the CSV tables are valid UTF-8, U+FFFD where names held invalid bytes", "[csv][utf8]") {
  Trace t;
  fillBadNamesTrace(t);
  TempDir dir;
  const ExportResult r = exportAll(t, kFormatCsv | kFormatJson, dir.path("t"));
  REQUIRE(r.errors.empty());
  const auto tables = written(r, ".csv");
  REQUIRE(tables.size() > 2);
  for (const auto& [name, text] : tables) {
    INFO(name);
    CHECK(wellFormedUtf8(text));
  }
  REQUIRE(tables.count("t.nvtx.csv") == 1);
  CHECK(contains(tables.at("t.nvtx.csv"), kFixedMessage));
  REQUIRE(tables.count("t.kernels.csv") == 1);
  CHECK(contains(tables.at("t.kernels.csv"), kFixedKernel));
  // The JSON says the same names the same way.
  const std::string json = written(r, ".json").at("t.json");
  CHECK(wellFormedUtf8(json));
  for (const std::string& fixed : {kFixedMessage, kFixedKernel, kFixedThread, kFixedStream}) {
    INFO(fixed);
    CHECK(contains(json, fixed));
  }
}

TEST_CASE("text outputs: the SQLite TEXT values are valid UTF-8, U+FFFD where names held invalid bytes",
          "[sqlite][utf8]") {
  Trace t;
  fillBadNamesTrace(t);
  TempDir dir;
  const std::string path = dir.path("t.sqlite");
  REQUIRE(writeSqlite(t, path, false).error.empty());
  std::string invalid;
  const std::string text = sqliteText(path, invalid);
  CHECK(invalid.empty());
  for (const std::string& fixed : {kFixedMessage, kFixedKernel, kFixedThread, kFixedStream, kFixedDomain,
                                   "app" + kReplacement, "./app " + kReplacement}) {
    INFO(fixed);
    CHECK(contains(text, fixed));
  }
}

// Run by CTest with CUPTITRACE_PYTHON set (tests/unit/CMakeLists.txt): the
// readers a user would reach for, decoding as UTF-8 and strict about it.
TEST_CASE("text outputs: CSV and SQLite read by python3's csv and sqlite3 modules", "[.python]") {
  const char* python = std::getenv("CUPTITRACE_PYTHON");
  REQUIRE(python != nullptr);
  Trace t;
  fillBadNamesTrace(t);
  TempDir dir;
  REQUIRE(exportAll(t, kFormatCsv | kFormatSqlite, dir.path("t")).errors.empty());
  const std::string script =
      "import csv, glob, sqlite3, sys\n"
      "d = sys.argv[1]\n"
      "rows = 0\n"
      "for f in glob.glob(d + '/t.*.csv'):\n"
      "    rows += sum(1 for _ in csv.reader(open(f, encoding='utf-8', newline='')))\n"
      "nvtx = open(d + '/t.nvtx.csv', encoding='utf-8').read()\n"
      "assert 'bad \\ufffd\\ufffd range' in nvtx, nvtx\n"
      "db = sqlite3.connect(d + '/t.sqlite')\n"
      "names = [r[0] for r in db.execute(\"SELECT name FROM sqlite_master WHERE type = 'table'\")]\n"
      "values = [v for n in names for row in db.execute('SELECT * FROM ' + n) for v in row]\n"
      "assert 'bad \\ufffd\\ufffd range' in values\n"
      "print('python3 read', rows, 'CSV rows and', len(values), 'SQLite values')\n";
  std::ofstream(dir.path("check.py")) << script;
  const std::string command = std::string(python) + " " + dir.path("check.py") + " " + dir.path().string();
  INFO(command);
  CHECK(std::system(command.c_str()) == 0);
}

}  // namespace
}  // namespace cuptitrace
