// Reading a report's cells by column key, for the report tests.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "reports/report_table.h"

namespace cuptitrace::testing {

inline size_t reportColumn(const ReportTable& t, const std::string& key) {
  for (size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i].key == key) return i;
  FAIL("no column " << key);
  return 0;
}

inline const Cell& reportCell(const ReportTable& t, size_t row, const std::string& key) {
  return t.rows.at(row).at(reportColumn(t, key));
}

inline bool reportNoteContains(const ReportTable& t, const std::string& text) {
  for (const auto& n : t.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace cuptitrace::testing
