// Small synthetic traces for the report tests, and look-ups into the
// tables built from them (a missing column or row throws, failing the test).
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/trace.h"
#include "reports/report_table.h"
#include "reports/reports.h"

namespace cuptitrace::testing::reports {

// ---- building traces ---------------------------------------------------------

// The correlation id of the last record built (tests read it back).
inline uint32_t gCorrelation = 1000;

inline void kernel(Trace& t, const std::string& name, uint64_t start, uint64_t end,
                   uint32_t stream = 7, uint32_t device = 0, int32_t gridX = 1,
                   uint16_t blockX = 32) {
  KernelRecord k{};
  k.start = start;
  k.end = end;
  k.name = t.strings.intern(name);
  k.correlationId = ++gCorrelation;
  k.deviceId = device;
  k.streamId = stream;
  k.gridX = gridX;
  k.gridY = k.gridZ = 1;
  k.blockX = blockX;
  k.blockY = k.blockZ = 1;
  t.store.add(k);
}

inline void memcpy(Trace& t, CopyKind kind, MemoryKind src, MemoryKind dst, uint64_t bytes,
                   uint64_t start, uint64_t end, bool async = true, uint32_t stream = 7,
                   uint32_t device = 0) {
  MemcpyRecord m{};
  m.start = start;
  m.end = end;
  m.bytes = bytes;
  m.correlationId = ++gCorrelation;
  m.deviceId = m.srcDeviceId = m.dstDeviceId = device;
  m.streamId = stream;
  m.copyKind = static_cast<uint8_t>(kind);
  m.srcKind = static_cast<uint8_t>(src);
  m.dstKind = static_cast<uint8_t>(dst);
  m.flags = async ? kCopyFlagAsync : 0;
  t.store.add(m);
}

inline void memset(Trace& t, uint64_t bytes, uint64_t start, uint64_t end, uint32_t stream = 7) {
  MemsetRecord m{};
  m.start = start;
  m.end = end;
  m.bytes = bytes;
  m.correlationId = ++gCorrelation;
  m.streamId = stream;
  m.memoryKind = static_cast<uint8_t>(MemoryKind::Device);
  t.store.add(m);
}

inline void api(Trace& t, const std::string& name, uint64_t start, uint64_t end,
                uint32_t thread = 1) {
  ApiRecord a{};
  a.start = start;
  a.end = end;
  a.name = t.strings.intern(name);
  a.correlationId = ++gCorrelation;
  a.threadId = thread;
  a.domain =
      static_cast<uint8_t>(name.rfind("cuda", 0) == 0 ? ApiDomain::Runtime : ApiDomain::Driver);
  t.store.add(a);
}

inline void range(Trace& t, const std::string& message, uint64_t start, uint64_t end,
                  NvtxType type = NvtxType::PushPop, const std::string& domain = "",
                  uint8_t flags = 0, uint32_t thread = 1, uint16_t depth = 0) {
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(type);
  n.start = start;
  n.end = end;
  n.message = t.strings.intern(message);
  n.domain = domain.empty() ? kNoString : t.strings.intern(domain);
  n.flags = flags;
  n.threadId = n.endThreadId = thread;
  n.depth = depth;
  t.store.add(n);
}

// ---- reading tables ----------------------------------------------------------

inline size_t col(const ReportTable& table, const std::string& key) {
  for (size_t i = 0; i < table.columns.size(); ++i)
    if (table.columns[i].key == key) return i;
  throw std::runtime_error("no column " + key + " in " + table.name);
}

// The row whose name (or range, or operation) column is `name`.
inline const std::vector<Cell>& row(const ReportTable& table, const std::string& name,
                                    size_t nameColumn) {
  for (const auto& r : table.rows)
    if (r[nameColumn].s == name) return r;
  throw std::runtime_error("no row " + name + " in " + table.name);
}
inline const std::vector<Cell>& row(const ReportTable& table, const std::string& name) {
  const std::string key = table.name == "nvtx" ? "range" : "name";
  return row(table, name, col(table, key));
}

inline uint64_t intAt(const ReportTable& table, const std::vector<Cell>& r,
                      const std::string& key) {
  const Cell& c = r.at(col(table, key));
  REQUIRE(c.kind == Cell::Kind::Int);
  return c.i;
}
inline double numAt(const ReportTable& table, const std::vector<Cell>& r, const std::string& key) {
  const Cell& c = r.at(col(table, key));
  REQUIRE(c.kind != Cell::Kind::Empty);
  return c.number();
}
inline std::vector<std::string> names(const ReportTable& table, const std::string& key = "name") {
  std::vector<std::string> out;
  for (const auto& r : table.rows) out.push_back(r[col(table, key)].s);
  return out;
}
inline bool anyNoteContains(const ReportTable& table, const std::string& text) {
  for (const auto& n : table.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

inline ReportTable report(const Trace& t, const char* name, const ReportOptions& options = {}) {
  return buildReport(t, name, options);
}

}  // namespace cuptitrace::testing::reports
