// A CSV table of a trace read back into rows of fields, as the CSV module
// reads it (quoted fields, doubled quotes), for the tests of what the CSV says.
#pragma once

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "core/trace.h"
#include "exporters/csv/csv.h"

namespace cuptitrace::testing {

// The text of `kind`'s table, formatted by `threads` threads in pieces of `pieceRecords`.
inline std::string csvTableText(const Trace& t, RecordKind kind, unsigned threads = 1,
                                size_t pieceRecords = kCsvPieceRecords) {
  std::ostringstream out;
  writeCsvTable(t, kind, out, threads, pieceRecords);
  return out.str();
}

inline std::vector<std::vector<std::string>> csvTableRows(const Trace& t, RecordKind kind) {
  std::ostringstream out;
  writeCsvTable(t, kind, out);
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(out.str());
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted) {
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') field += '"', ++i;
        else if (c == '"') quoted = false;
        else field += c;
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.push_back(field);
        field.clear();
      } else {
        field += c;
      }
    }
    fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

// The index of the column `name` in `header`; fails the test when there is none.
inline size_t csvColumn(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  FAIL("no column " << name);
  return 0;
}

}  // namespace cuptitrace::testing
