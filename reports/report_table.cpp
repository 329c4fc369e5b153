#include "reports/report_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/utf8.h"
#include "core/json_text.h"

namespace cuptitrace {
namespace {

constexpr std::string_view kEllipsis = "...";

double unitScale(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Us:
      return 1e3;
    case TimeUnit::Ms:
      return 1e6;
    case TimeUnit::S:
      return 1e9;
    case TimeUnit::Auto:
    case TimeUnit::Ns:
      break;
  }
  return 1;
}

// CSV and JSON have no "auto": they write nanoseconds unless told otherwise.
TimeUnit machineUnit(TimeUnit unit) { return unit == TimeUnit::Auto ? TimeUnit::Ns : unit; }

const char* columnTypeName(ColumnType type) {
  switch (type) {
    case ColumnType::Text:
      return "text";
    case ColumnType::Name:
      return "name";
    case ColumnType::Count:
      return "count";
    case ColumnType::Duration:
      return "duration";
    case ColumnType::Percent:
      return "percent";
    case ColumnType::Bytes:
      return "bytes";
    case ColumnType::Rate:
      return "rate";
  }
  return "text";
}

bool leftAligned(ColumnType type) { return type == ColumnType::Text || type == ColumnType::Name; }

// Number of characters (UTF-8 code points) of `s`: what a terminal shows.
size_t displayWidth(std::string_view s) {
  size_t n = 0;
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

// Byte offset of code point `k` of `s` (s.size() when past the end).
size_t offsetOfCodePoint(std::string_view s, size_t k) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (n == k) return i;
    ++n;
  }
  return s.size();
}

std::string shortestDouble(double v) {
  if (!std::isfinite(v)) return v != v ? "nan" : (v < 0 ? "-inf" : "inf");
  // Fixed notation ("310000000", not "3.1e+08"), the shortest that reads back
  // exactly; scientific only where fixed would be absurdly long.
  char tmp[400];
  const auto format = std::fabs(v) < 1e21 ? std::chars_format::fixed : std::chars_format::scientific;
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v, format);
  return std::string(tmp, r.ptr);
}

std::string withSeparators(uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// `v` with `decimals` decimals and thousands separators in the integer part.
std::string fixedWithSeparators(double v, int decimals) {
  char tmp[64];
  std::snprintf(tmp, sizeof tmp, "%.*f", decimals, std::fabs(v));
  std::string s(tmp);
  const size_t dot = s.find('.');
  const std::string intPart = s.substr(0, dot);
  std::string out = v < 0 ? "-" : "";
  for (size_t i = 0; i < intPart.size(); ++i) {
    if (i != 0 && (intPart.size() - i) % 3 == 0) out += ',';
    out += intPart[i];
  }
  if (dot != std::string::npos) out += s.substr(dot);
  return out;
}

std::string textCell(const Column& column, const Cell& cell, const RenderOptions& options) {
  if (cell.kind == Cell::Kind::Empty) return "-";
  switch (column.type) {
    case ColumnType::Text:
      return displayName(cell.s, 0);
    case ColumnType::Name:
      return displayName(cell.s, options.nameWidth);
    case ColumnType::Count:
      return cell.kind == Cell::Kind::Int ? std::to_string(cell.i) : shortestDouble(cell.d);
    case ColumnType::Duration:
      return formatDuration(cell.number(), cell.kind == Cell::Kind::Int, options.timeUnit);
    case ColumnType::Percent: {
      char tmp[32];
      std::snprintf(tmp, sizeof tmp, "%.2f", cell.number());
      return tmp;
    }
    case ColumnType::Bytes:
      return formatBytes(cell.number());
    case ColumnType::Rate: {
      char tmp[32];
      std::snprintf(tmp, sizeof tmp, "%.3f", cell.number());
      return tmp;
    }
  }
  return {};
}

std::string machineKey(const Column& column, const RenderOptions& options) {
  if (column.type == ColumnType::Duration)
    return column.key + "_" + timeUnitName(machineUnit(options.timeUnit));
  return column.key;
}

// A cell's value for CSV and JSON: integers exact, reals shortest, durations
// in the machine unit. Text is handled by the callers (it needs escaping).
std::string machineNumber(const Column& column, const Cell& cell, const RenderOptions& options) {
  const TimeUnit unit = machineUnit(options.timeUnit);
  if (column.type == ColumnType::Duration && unit != TimeUnit::Ns)
    return shortestDouble(cell.number() / unitScale(unit));
  if (cell.kind == Cell::Kind::Int) return std::to_string(cell.i);
  return shortestDouble(cell.d);
}

size_t shownRows(const ReportTable& table, const RenderOptions& options) {
  return options.top == 0 ? table.rows.size() : std::min(options.top, table.rows.size());
}

bool csvNeedsQuoting(std::string_view s) {
  if (s.empty()) return false;
  if (s.front() == ' ' || s.front() == '\t' || s.back() == ' ' || s.back() == '\t') return true;
  return s.find_first_of(",\"\r\n") != std::string_view::npos;
}

// As the CSV tables write text (csv_writer.h): invalid UTF-8 becomes U+FFFD,
// so that readers decoding the file as UTF-8 can read it.
void csvText(std::string_view s, std::string& out) {
  if (!isValidUtf8(s)) return csvText(validUtf8(s), out);
  if (!csvNeedsQuoting(s)) {
    out.append(s);
    return;
  }
  out += '"';
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void pad(std::string& out, size_t n) { out.append(n, ' '); }

void renderGrid(const ReportTable& table, const RenderOptions& options, size_t shown,
                std::string& out) {
  const size_t ncol = table.columns.size();
  std::vector<std::string> headers(ncol);
  for (size_t c = 0; c < ncol; ++c) {
    headers[c] = table.columns[c].title;
    if (table.columns[c].type == ColumnType::Duration && options.timeUnit != TimeUnit::Auto)
      headers[c] += std::string(" (") + timeUnitName(options.timeUnit) + ")";
  }
  std::vector<std::vector<std::string>> cells(shown, std::vector<std::string>(ncol));
  std::vector<size_t> widths(ncol);
  for (size_t c = 0; c < ncol; ++c) widths[c] = displayWidth(headers[c]);
  for (size_t r = 0; r < shown; ++r) {
    for (size_t c = 0; c < ncol && c < table.rows[r].size(); ++c) {
      cells[r][c] = textCell(table.columns[c], table.rows[r][c], options);
      widths[c] = std::max(widths[c], displayWidth(cells[r][c]));
    }
  }
  auto line = [&](const std::vector<std::string>& values) {
    std::string text = " ";
    for (size_t c = 0; c < ncol; ++c) {
      const size_t gap = widths[c] - std::min(widths[c], displayWidth(values[c]));
      const bool last = c + 1 == ncol;
      if (leftAligned(table.columns[c].type)) {
        text += values[c];
        if (!last) pad(text, gap);
      } else {
        pad(text, gap);
        text += values[c];
      }
      if (!last) text += "  ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text;
    out += '\n';
  };
  line(headers);
  std::vector<std::string> rules(ncol);
  for (size_t c = 0; c < ncol; ++c) rules[c] = std::string(widths[c], '-');
  line(rules);
  for (const auto& row : cells) line(row);
}

void renderList(const ReportTable& table, const RenderOptions& options, size_t shown,
                std::string& out) {
  for (size_t r = 0; r < shown; ++r) {
    const auto& row = table.rows[r];
    std::vector<std::string> values;
    for (size_t c = 0; c < table.columns.size() && c < row.size(); ++c) {
      RenderOptions wide = options;
      wide.nameWidth = 0;  // a list has room for whole names
      values.push_back(textCell(table.columns[c], row[c], wide));
    }
    out += ' ';
    if (!values.empty()) out += values[0];
    if (values.size() > 1) out += ". " + values[1];
    out += '\n';
    for (size_t c = 2; c < values.size(); ++c) {
      out += "    ";
      if (c > 2) out += table.columns[c].title + ": ";
      out += values[c];
      out += '\n';
    }
  }
}

}  // namespace

std::optional<TimeUnit> parseTimeUnit(std::string_view text) {
  if (text == "auto") return TimeUnit::Auto;
  if (text == "ns") return TimeUnit::Ns;
  if (text == "us") return TimeUnit::Us;
  if (text == "ms") return TimeUnit::Ms;
  if (text == "s") return TimeUnit::S;
  return std::nullopt;
}

const char* timeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Auto:
      return "auto";
    case TimeUnit::Ns:
      return "ns";
    case TimeUnit::Us:
      return "us";
    case TimeUnit::Ms:
      return "ms";
    case TimeUnit::S:
      return "s";
  }
  return "ns";
}

std::optional<ReportFormat> parseReportFormat(std::string_view text) {
  if (text == "table") return ReportFormat::Table;
  if (text == "csv") return ReportFormat::Csv;
  if (text == "json") return ReportFormat::Json;
  return std::nullopt;
}

std::string displayName(std::string_view name, size_t width) {
  // Invalid UTF-8 replaced first, so that widths count what a terminal
  // shows and a cut never splits a character.
  const std::string valid = isValidUtf8(name) ? std::string() : validUtf8(name);
  if (!valid.empty()) name = valid;
  std::string s;
  s.reserve(name.size());
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n')
      s += "\\n";
    else if (c == '\t')
      s += "\\t";
    else if (c == '\r')
      s += "\\r";
    else if (c < 0x20 || c == 0x7F) {
      char tmp[8];
      std::snprintf(tmp, sizeof tmp, "\\x%02X", c);
      s += tmp;
    } else {
      s += ch;
    }
  }
  const size_t chars = displayWidth(s);
  if (width == 0 || chars <= width) return s;
  if (width <= kEllipsis.size()) return s.substr(0, offsetOfCodePoint(s, width));
  const size_t keep = width - kEllipsis.size();
  const size_t head = (keep + 1) / 2;
  const size_t tail = keep - head;
  return s.substr(0, offsetOfCodePoint(s, head)) + std::string(kEllipsis) +
         s.substr(offsetOfCodePoint(s, chars - tail));
}

std::string formatDuration(double ns, bool integral, TimeUnit unit) {
  char tmp[64];
  switch (unit) {
    case TimeUnit::Auto: {
      // nvprof's form: the largest unit that keeps the value at 1 or more,
      // five significant digits; whole nanoseconds below 1 us.
      const double a = std::fabs(ns);
      if (a < 1e3) {
        if (integral || ns == std::floor(ns))
          std::snprintf(tmp, sizeof tmp, "%.0fns", ns);
        else
          std::snprintf(tmp, sizeof tmp, "%.2fns", ns);
        return tmp;
      }
      const char* suffix = "us";
      double v = ns / 1e3;
      if (a >= 1e9) {
        v = ns / 1e9;
        suffix = "s";
      } else if (a >= 1e6) {
        v = ns / 1e6;
        suffix = "ms";
      }
      const double av = std::fabs(v);
      const int decimals = av >= 100 ? 2 : (av >= 10 ? 3 : 4);
      std::snprintf(tmp, sizeof tmp, "%.*f%s", decimals, v, suffix);
      // Rounding can carry into the next unit ("1000.00us"); it still reads right.
      return tmp;
    }
    case TimeUnit::Ns:
      if (integral && ns >= 0) return withSeparators(static_cast<uint64_t>(ns));
      return fixedWithSeparators(ns, 1);
    case TimeUnit::Us:
    case TimeUnit::Ms:
    case TimeUnit::S:
      return fixedWithSeparators(ns / unitScale(unit), 3);
  }
  return {};
}

std::string formatBytes(double bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  char tmp[64];
  if (std::fabs(bytes) < 1024) {
    if (bytes == std::floor(bytes))
      std::snprintf(tmp, sizeof tmp, "%.0f B", bytes);
    else
      std::snprintf(tmp, sizeof tmp, "%.1f B", bytes);
    return tmp;
  }
  double v = bytes / 1024;
  size_t u = 0;
  while (std::fabs(v) >= 1024 && u + 1 < sizeof kUnits / sizeof kUnits[0]) {
    v /= 1024;
    ++u;
  }
  std::snprintf(tmp, sizeof tmp, "%.3f %s", v, kUnits[u]);
  return tmp;
}

void renderText(const ReportTable& table, const RenderOptions& options, std::string& out) {
  const size_t shown = shownRows(table, options);
  out += validUtf8(table.title);  // it may hold a name given by the user (an unknown report's)
  if (shown < table.rows.size())
    out += " (top " + std::to_string(shown) + " of " + std::to_string(table.rows.size()) + ")";
  out += ":\n\n";
  if (table.rows.empty()) {
    out += " (none)\n";
  } else if (table.style == TableStyle::List) {
    renderList(table, options, shown, out);
  } else {
    renderGrid(table, options, shown, out);
  }
  if (!table.notes.empty()) out += '\n';
  for (const auto& note : table.notes) out += " Note: " + displayName(note, 0) + "\n";
  out += '\n';
}

void renderCsv(const ReportTable& table, const RenderOptions& options, std::string& out) {
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (c) out += ',';
    csvText(machineKey(table.columns[c], options), out);
  }
  out += '\n';
  const size_t shown = shownRows(table, options);
  for (size_t r = 0; r < shown; ++r) {
    const auto& row = table.rows[r];
    for (size_t c = 0; c < table.columns.size(); ++c) {
      if (c) out += ',';
      if (c >= row.size() || row[c].kind == Cell::Kind::Empty) continue;
      if (row[c].kind == Cell::Kind::Text)
        csvText(row[c].s, out);
      else
        out += machineNumber(table.columns[c], row[c], options);
    }
    out += '\n';
  }
}

void renderJson(const std::vector<ReportTable>& tables, const RenderOptions& options,
                std::string& out) {
  JsonText j;
  j.lit("{\"reports\":[");
  for (size_t t = 0; t < tables.size(); ++t) {
    const ReportTable& table = tables[t];
    if (t) j.put(',');
    j.lit("\n{\"name\":");
    j.quoted(table.name);
    j.lit(",\"title\":");
    j.quoted(table.title);
    j.lit(",\"columns\":[");
    for (size_t c = 0; c < table.columns.size(); ++c) {
      const Column& col = table.columns[c];
      if (c) j.put(',');
      j.lit("{\"key\":");
      j.quoted(machineKey(col, options));
      j.lit(",\"title\":");
      j.quoted(col.title);
      j.lit(",\"type\":");
      j.quoted(columnTypeName(col.type));
      if (col.type == ColumnType::Duration) {
        j.lit(",\"unit\":");
        j.quoted(timeUnitName(machineUnit(options.timeUnit)));
      } else if (col.type == ColumnType::Bytes) {
        j.lit(",\"unit\":\"B\"");
      } else if (col.type == ColumnType::Rate) {
        j.lit(",\"unit\":\"GB/s\"");
      }
      j.put('}');
    }
    j.lit("],\"rows\":[");
    const size_t shown = shownRows(table, options);
    for (size_t r = 0; r < shown; ++r) {
      const auto& row = table.rows[r];
      if (r) j.put(',');
      j.lit("\n{");
      for (size_t c = 0; c < table.columns.size(); ++c) {
        if (c) j.put(',');
        j.quoted(machineKey(table.columns[c], options));
        j.put(':');
        if (c >= row.size() || row[c].kind == Cell::Kind::Empty) {
          j.lit("null");
        } else if (row[c].kind == Cell::Kind::Text) {
          j.quoted(row[c].s);
        } else {
          const std::string v = machineNumber(table.columns[c], row[c], options);
          // Non-finite values have no JSON number; write them as strings.
          if (v == "nan" || v == "inf" || v == "-inf")
            j.quoted(v);
          else
            j.put(v);
        }
      }
      j.put('}');
    }
    j.lit("],\"rows_total\":");
    j.uint(table.rows.size());
    j.lit(",\"notes\":[");
    for (size_t n = 0; n < table.notes.size(); ++n) {
      if (n) j.put(',');
      j.quoted(table.notes[n]);
    }
    j.lit("]}");
  }
  j.lit("\n]}\n");
  out.append(j.view());
}

std::string renderTables(const std::vector<ReportTable>& tables, ReportFormat format,
                         const RenderOptions& options) {
  std::string out;
  switch (format) {
    case ReportFormat::Table:
      for (const auto& t : tables) renderText(t, options, out);
      break;
    case ReportFormat::Csv:
      for (size_t i = 0; i < tables.size(); ++i) {
        if (i) out += '\n';
        renderCsv(tables[i], options, out);
      }
      break;
    case ReportFormat::Json:
      renderJson(tables, options, out);
      break;
  }
  return out;
}

}  // namespace cuptitrace
