// The table model every report returns, and its three renderers: an aligned
// text table (like nvprof and `nsys stats` print), CSV (RFC 4180) and JSON.
//
// One model, three renderings: a report decides what the rows hold, the
// renderers decide only how a value looks. Durations are kept in nanoseconds
// and converted by the renderer to the time unit asked for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuptitrace {

enum class ColumnType : uint8_t {
  Text,      // left-aligned text
  Name,      // left-aligned; in text tables cut in the middle to the name width
  Count,     // an integer
  Duration,  // nanoseconds, shown in the time unit
  Percent,   // 0..100
  Bytes,     // a byte count
  Rate,      // GB/s (bytes per nanosecond)
};

struct Column {
  std::string title;  // table header: "Time(%)"
  std::string key;    // CSV header and JSON key: "time_pct" (durations get the unit: "total_ns")
  ColumnType type;
};

// One value. Integers stay exact (totals of nanoseconds and bytes); means,
// medians and shares are reals; an empty cell is "no value" (null in JSON).
struct Cell {
  enum class Kind : uint8_t { Empty, Int, Real, Text };
  Kind kind = Kind::Empty;
  uint64_t i = 0;
  double d = 0;
  std::string s;

  static Cell none() { return {}; }
  static Cell integer(uint64_t v) {
    Cell c;
    c.kind = Kind::Int;
    c.i = v;
    return c;
  }
  static Cell real(double v) {
    Cell c;
    c.kind = Kind::Real;
    c.d = v;
    return c;
  }
  static Cell text(std::string v) {
    Cell c;
    c.kind = Kind::Text;
    c.s = std::move(v);
    return c;
  }
  double number() const { return kind == Kind::Int ? static_cast<double>(i) : d; }
};

enum class TableStyle : uint8_t {
  Grid,  // aligned columns
  List,  // one block per row: "1. <second column>", then "   <title>: <value>" (findings)
};

struct ReportTable {
  std::string name;   // "gpu_activities"
  std::string title;  // "GPU activities"
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  // What a reader must know about the rows: records without a time, ranges
  // still open at exit, how the span was measured. Shown under text tables
  // and in JSON; CSV holds only the rows.
  std::vector<std::string> notes;
  TableStyle style = TableStyle::Grid;
};

enum class TimeUnit : uint8_t { Auto, Ns, Us, Ms, S };
std::optional<TimeUnit> parseTimeUnit(std::string_view text);  // "auto", "ns", "us", "ms", "s"
const char* timeUnitName(TimeUnit unit);

enum class ReportFormat : uint8_t { Table, Csv, Json };
std::optional<ReportFormat> parseReportFormat(std::string_view text);  // "table", "csv", "json"

struct RenderOptions {
  size_t top = 0;  // rows shown per table; 0 shows all
  // Auto: text tables pick a unit per value (like nvprof), CSV and JSON write ns.
  TimeUnit timeUnit = TimeUnit::Auto;
  size_t nameWidth = 80;  // text tables only: longer names are cut in the middle; 0: no limit
};

// Appends one rendering of `table` to `out`.
void renderText(const ReportTable& table, const RenderOptions& options, std::string& out);
void renderCsv(const ReportTable& table, const RenderOptions& options, std::string& out);
// {"reports": [ {name, title, columns, rows, rows_total, notes}, ... ]}
void renderJson(const std::vector<ReportTable>& tables, const RenderOptions& options,
                std::string& out);
// Several tables in one format: text tables one after another, CSV tables
// separated by an empty line, JSON as one document.
std::string renderTables(const std::vector<ReportTable>& tables, ReportFormat format,
                         const RenderOptions& options);

// Text helpers, exposed for tests.
// `name` made printable (control characters escaped as \n, \t, \xNN) and,
// when longer than `width` characters (UTF-8 code points), cut in the middle
// with "..." so that both ends stay readable. width 0: no limit.
std::string displayName(std::string_view name, size_t width);
// A duration in a unit: Auto gives nvprof's form ("1.2680us", "639ns").
std::string formatDuration(double ns, bool integral, TimeUnit unit);
// "1.000 MiB" style (binary units), "512 B" below 1 KiB.
std::string formatBytes(double bytes);

}  // namespace cuptitrace
