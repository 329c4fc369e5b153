// Any bytes as kernel names, NVTX messages, domains and thread names: the JSON
// is always valid and the CSV always has its header's column count.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "exporters/csv/csv.h"

using namespace cuptitrace;

namespace {

// Counts CSV fields per record, RFC 4180 style; -1 when quoting is broken.
bool csvShapeOk(const std::string& text, size_t columns) {
  size_t fields = 1;
  bool quoted = false, atStart = true;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') ++i;
        else quoted = false;
      }
      continue;
    }
    if (c == '"' && atStart) { quoted = true; atStart = false; continue; }
    atStart = false;
    if (c == ',') { ++fields; atStart = true; }
    else if (c == '\n') {
      if (fields != columns) return false;
      fields = 1;
      atStart = true;
    }
  }
  return !quoted;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Trace trace;
  trace.meta.pid = 1;
  trace.meta.processName = text;
  trace.meta.commandLine = text;
  trace.threadNames[1] = text;
  trace.streamNames[7] = text;
  const StringId id = trace.strings.intern(text);

  KernelRecord k{};
  k.start = 100;
  k.end = 200;
  k.name = id;
  k.streamId = 7;
  k.correlationId = 1;
  trace.store.add(k);
  ApiRecord a{};
  a.start = 50;
  a.end = 150;
  a.name = id;
  a.threadId = 1;
  a.correlationId = 1;
  trace.store.add(a);
  NvtxRecord n{};
  n.start = 10;
  n.end = 300;
  n.threadId = 1;
  n.endThreadId = 1;
  n.message = id;
  n.domain = id;
  trace.store.add(n);

  std::ostringstream json;
  writeChromeJson(trace, json);
  if (!nlohmann::json::accept(json.str())) std::abort();

  for (RecordKind kind : {RecordKind::Kernel, RecordKind::Api, RecordKind::Nvtx}) {
    std::ostringstream csv;
    writeCsvTable(trace, kind, csv);
    if (!csvShapeOk(csv.str(), csvColumns(kind).size())) std::abort();
  }
  return 0;
}
