// What the SQLite output tests share: a query on a written database, read
// back with SQLite itself, every value as its text ("NULL" for null).
#pragma once

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace cuptitrace::testing::sqlite {

using Rows = std::vector<std::vector<std::string>>;

inline Rows query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  INFO(sql);
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  Rows out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    out.emplace_back();
    for (int c = 0; c < sqlite3_column_count(s); ++c) {
      const auto* text = sqlite3_column_text(s, c);
      out.back().push_back(text ? reinterpret_cast<const char*>(text) : "NULL");
    }
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

// Every table's rows with their rowids, and the schema: what a database
// written by any number of threads holds the same (its pages may differ, and
// the order in which its indexes were made).
inline std::vector<Rows> contents(const std::string& path) {
  std::vector<Rows> all;
  all.push_back(query(path, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"));
  for (const auto& table : query(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) {
    all.push_back({{table[0]}});
    all.push_back(query(path, "SELECT rowid, * FROM " + table[0] + " ORDER BY rowid"));
  }
  return all;
}

}  // namespace cuptitrace::testing::sqlite
