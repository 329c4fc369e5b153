// The page around the data: the document, its content security policy (no
// request to anywhere: scripts and styles inline, images from data: only),
// the style, the data as JSON, the chart library and the page's script, all
// inline. The assets are compiled in (cmake/embed_files.cmake).
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "core/json_text.h"
#include "exporters/html/html_data.h"
#include "reports/rank_reports.h"

namespace cuptitrace::embedded {
extern const unsigned char echarts_js[];
extern const size_t echarts_js_size;
extern const unsigned char page_css[];
extern const size_t page_css_size;
extern const unsigned char page_body[];
extern const size_t page_body_size;
extern const unsigned char page_js[];
extern const size_t page_js_size;
}  // namespace cuptitrace::embedded

namespace cuptitrace {
namespace html {
namespace {

std::string_view asset(const unsigned char* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

void put(std::ostream& out, std::string_view s) { out.write(s.data(), static_cast<std::streamsize>(s.size())); }

// Text for HTML element content.
std::string escapeHtml(std::string_view s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

void writePage(const std::string& title, const std::string& data, std::ostream& out) {
  put(out,
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // Nothing leaves the page: no script, style, font, image or connection
      // from anywhere but the page itself (data: and blob: images are the
      // charts' own exports). Opening Perfetto is a window the user asks for.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src 'none'; "
      "connect-src 'none'; frame-src 'none'; form-action 'none'; base-uri 'none'\">\n"
      "<meta name=\"generator\" content=\"cuptitrace\">\n<title>");
  put(out, escapeHtml(title));
  put(out, "</title>\n<style>\n");
  put(out, asset(embedded::page_css, embedded::page_css_size));
  put(out, "</style>\n</head>\n<body>\n");
  put(out, asset(embedded::page_body, embedded::page_body_size));
  // JSON inside a script element: no '<' may appear, so that nothing in a
  // name ("</script>") ends the element. '<' is only ever inside strings, where
  // \u003c is the same character.
  put(out, "<script type=\"application/json\" id=\"cuptitrace-data\">");
  size_t from = 0;
  for (size_t lt = data.find('<'); lt != std::string::npos; lt = data.find('<', from)) {
    put(out, std::string_view(data).substr(from, lt - from));
    put(out, "\\u003c");
    from = lt + 1;
  }
  put(out, std::string_view(data).substr(from));
  put(out, "</script>\n<script>\n");
  put(out, asset(embedded::echarts_js, embedded::echarts_js_size));
  put(out, "\n</script>\n<script>\n");
  put(out, asset(embedded::page_js, embedded::page_js_size));
  put(out, "\n</script>\n</body>\n</html>\n");
}

}  // namespace html

void writeHtmlReport(const Trace& trace, const ReportOptions& reportOptions, const HtmlOptions& options,
                     std::ostream& out) {
  std::string title = trace.meta.processName.empty() ? options.source : trace.meta.processName;
  html::writePage("cuptitrace: " + title, html::traceData(trace, reportOptions, options), out);
}

void writeHtmlRankReport(const std::vector<RankSummary>& ranks, const std::vector<ReportTable>& tables,
                         const std::vector<std::string>& notes, const HtmlOptions& options, std::ostream& out) {
  JsonText j;
  j.lit("{\"kind\":\"ranks\",\"run\":{\"source\":");
  j.quoted(options.source);
  j.lit(",\"notes\":[");
  for (size_t i = 0; i < notes.size(); ++i) {
    if (i) j.put(',');
    j.quoted(notes[i]);
  }
  // Each rank's totals as its summary holds them: the stacked chart's parts.
  j.lit("]},\"ranks\":[");
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankSummary& r = ranks[i];
    if (i) j.put(',');
    j.lit("{\"name\":");
    j.quoted(rankName(r));
    j.lit(",\"host\":");
    j.quoted(r.host);
    const std::pair<const char*, uint64_t> numbers[] = {
        {"pid", r.pid},          {"gpus", r.gpus},         {"compute_ns", r.computeNs},
        {"comm_ns", r.commNs},   {"overlapped_ns", r.overlappedNs}, {"copy_ns", r.copyNs},
        {"idle_ns", r.idleNs},   {"span_ns", r.spanNs}};
    for (const auto& [name, value] : numbers) {
      j.put(',');
      j.quoted(name);
      j.put(':');
      j.uint(value);
    }
    j.put('}');
  }
  j.lit("],\"reports\":");
  html::appendReports(tables, j);
  j.lit(",\"series\":{\"memory\":[],\"gpu_metrics\":[]},\"timeline\":null}");
  html::writePage("cuptitrace: " + std::to_string(ranks.size()) + " ranks", std::string(j.view()), out);
}

}  // namespace cuptitrace
