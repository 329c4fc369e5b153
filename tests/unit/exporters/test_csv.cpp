// CSV tables: written from the synthetic trace, parsed back with a real
// RFC 4180 reader, compared with the records.
#include <catch2/catch.hpp>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/demangle.h"
#include "exporters/csv/csv.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

using Row = std::vector<std::string>;

// An RFC 4180 reader: quoted fields may hold commas, doubled quotes, CR and
// LF; records end with LF or CRLF. Anything else (a quote inside an unquoted
// field, text after a closing quote, an unterminated quote) throws, so a
// writer that quotes wrongly fails the test instead of parsing "close enough".
std::vector<Row> parseCsv(const std::string& text) {
  std::vector<Row> rows;
  Row row;
  std::string field;
  size_t i = 0;
  const size_t n = text.size();
  bool atRecordStart = true;
  while (i < n) {
    atRecordStart = false;
    if (text[i] == '"') {
      ++i;
      for (;;) {
        if (i >= n) throw std::runtime_error("unterminated quoted field");
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += text[i++];
      }
      if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
        throw std::runtime_error("text after a closing quote");
    } else {
      while (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
        if (text[i] == '"') throw std::runtime_error("quote inside an unquoted field");
        field += text[i++];
      }
    }
    row.push_back(std::move(field));
    field.clear();
    if (i >= n) break;
    if (text[i] == ',') {
      ++i;
      if (i == n) row.push_back("");  // trailing empty field at end of file
      continue;
    }
    if (text[i] == '\r') {
      if (i + 1 >= n || text[i + 1] != '\n') throw std::runtime_error("bare CR outside quotes");
      ++i;
    }
    ++i;  // the LF
    rows.push_back(std::move(row));
    row.clear();
    atRecordStart = true;
  }
  if (!atRecordStart) rows.push_back(std::move(row));  // last record without a line end
  return rows;
}

std::string tableText(const Trace& trace, RecordKind kind) {
  std::ostringstream out;
  writeCsvTable(trace, kind, out);
  return out.str();
}

// A parsed table with cells addressed by column name.
struct Table {
  Row header;
  std::vector<Row> rows;

  const std::string& at(size_t row, const std::string& column) const {
    for (size_t c = 0; c < header.size(); ++c)
      if (header[c] == column) return rows.at(row).at(c);
    throw std::runtime_error("no column " + column);
  }
};

Table readTable(const Trace& trace, RecordKind kind) {
  auto rows = parseCsv(tableText(trace, kind));
  REQUIRE(!rows.empty());
  Table t;
  t.header = rows.front();
  t.rows.assign(rows.begin() + 1, rows.end());
  return t;
}

}  // namespace

TEST_CASE("csv reader used by these tests handles RFC 4180 quoting", "[csv]") {
  const auto rows = parseCsv("a,\"b,c\",\"d\"\"e\"\r\n\"multi\nline\",,x\n");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0] == Row{"a", "b,c", "d\"e"});
  CHECK(rows[1] == Row{"multi\nline", "", "x"});
  CHECK_THROWS(parseCsv("a,b\"c\n"));
  CHECK_THROWS(parseCsv("\"open\n"));
}

TEST_CASE("csv tables have fixed headers and one row per record", "[csv]") {
  Trace trace;
  testing::fillSampleTrace(trace);
  // What the fixture holds (see trace_fixture.h).
  const std::pair<RecordKind, size_t> expected[] = {
      {RecordKind::Kernel, 3},  {RecordKind::Memcpy, 2}, {RecordKind::Memset, 1},
      {RecordKind::Api, 7},     {RecordKind::Nvtx, 4},   {RecordKind::Sync, 1},
      {RecordKind::Overhead, 1}};
  for (const auto& [kind, count] : expected) {
    INFO("table " << csvTableName(kind));
    const std::string text = tableText(trace, kind);
    const auto rows = parseCsv(text);
    REQUIRE(rows.size() == count + 1);
    CHECK(rows[0] == csvColumns(kind));
    for (const auto& row : rows) CHECK(row.size() == csvColumns(kind).size());
    // LF line ends: the only CRs are inside quoted fields, and the fixture has none.
    CHECK(text.find('\r') == std::string::npos);
    CHECK(text.back() == '\n');
  }
}

TEST_CASE("csv table names and columns are the documented ones", "[csv]") {
  CHECK(std::string(csvTableName(RecordKind::Kernel)) == "kernels");
  CHECK(std::string(csvTableName(RecordKind::Memcpy)) == "memcpy");
  CHECK(std::string(csvTableName(RecordKind::Overhead)) == "overhead");
  const auto& k = csvColumns(RecordKind::Kernel);
  REQUIRE(k.size() == 29);
  CHECK(k.front() == "start_ns");
  CHECK(k[7] == "name");
  CHECK(k[8] == "mangled_name");
  CHECK(k[21] == "device_launched");
  CHECK(k[22] == "external_id");
  CHECK(k[23] == "scope");
  CHECK(k[24] == "nccl_collective");
  CHECK(k.back() == "nccl_proto");
  // Every column name is snake_case (lower-case letters, digits, underscores).
  for (int kind = 0; kind < kRecordKindCount; ++kind) {
    for (const auto& c : csvColumns(static_cast<RecordKind>(kind))) {
      INFO(c);
      CHECK(c.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos);
    }
  }
}

TEST_CASE("csv keeps hostile, long and UTF-8 names exactly", "[csv]") {
  Trace trace;
  testing::fillSampleTrace(trace);

  const Table kernels = readTable(trace, RecordKind::Kernel);
  REQUIRE(kernels.rows.size() == 3);
  CHECK(kernels.at(0, "mangled_name") == testing::kHostileKernelName);
  CHECK(kernels.at(0, "name") == demangle(testing::kHostileKernelName));
  CHECK(kernels.at(1, "name") == testing::longTemplateName());
  CHECK(kernels.at(1, "mangled_name") == testing::longTemplateName());
  CHECK(kernels.at(2, "mangled_name") == "_Z3addPfS_S_i");
  CHECK(kernels.at(2, "name") == "add(float*, float*, float*, int)");

  // The raw text doubles the inner quotes and quotes the field with the newline.
  const std::string raw = tableText(trace, RecordKind::Kernel);
  CHECK(raw.find("\"\"quoted\"\"") != std::string::npos);

  const Table nvtx = readTable(trace, RecordKind::Nvtx);
  REQUIRE(nvtx.rows.size() == 4);
  CHECK(nvtx.at(0, "message") == "outer");
  CHECK(nvtx.at(1, "message") == testing::kUtf8Message);
  CHECK(nvtx.at(1, "domain") == "my domain");
  CHECK(nvtx.at(0, "domain") == "");

  const Table overhead = readTable(trace, RecordKind::Overhead);
  CHECK(overhead.at(0, "name") == "CUPTI buffer flush");
}

TEST_CASE("csv numeric and enum columns equal the record fields", "[csv]") {
  Trace trace;
  testing::fillSampleTrace(trace);
  const uint64_t b = trace.meta.baseTimestampNs;

  const Table kernels = readTable(trace, RecordKind::Kernel);
  CHECK(kernels.at(0, "start_ns") == std::to_string(b + 8000));
  CHECK(kernels.at(0, "end_ns") == std::to_string(b + 20000));
  CHECK(kernels.at(0, "duration_ns") == "12000");
  CHECK(kernels.at(0, "stream") == "7");
  CHECK(kernels.at(2, "stream") == "9");
  CHECK(kernels.at(0, "context") == "1");
  CHECK(kernels.at(0, "correlation_id") == "11");
  CHECK(kernels.at(0, "grid_x") == "128");
  CHECK(kernels.at(0, "block_x") == "256");
  CHECK(kernels.at(0, "registers_per_thread") == "32");
  CHECK(kernels.at(0, "static_shared_bytes") == "1024");
  CHECK(kernels.at(0, "dynamic_shared_bytes") == "0");
  CHECK(kernels.at(0, "launch_type") == "Regular");
  CHECK(kernels.at(0, "device_launched") == "0");

  const Table memcpy = readTable(trace, RecordKind::Memcpy);
  CHECK(memcpy.at(0, "bytes") == "1048576");
  CHECK(memcpy.at(0, "copy_kind") == "HtoD");
  CHECK(memcpy.at(0, "src_kind") == "Pinned");
  CHECK(memcpy.at(0, "dst_kind") == "Device");
  CHECK(memcpy.at(0, "async") == "1");
  CHECK(memcpy.at(0, "duration_ns") == "10000");
  CHECK(memcpy.at(1, "copy_kind") == "DtoH");
  CHECK(memcpy.at(1, "dst_kind") == "Pageable");
  CHECK(memcpy.at(1, "async") == "0");
  CHECK(memcpy.at(1, "correlation_id") == "16");

  const Table memset = readTable(trace, RecordKind::Memset);
  CHECK(memset.at(0, "bytes") == "4096");
  CHECK(memset.at(0, "value") == "0");
  CHECK(memset.at(0, "memory_kind") == "Device");
  CHECK(memset.at(0, "async") == "1");

  const Table api = readTable(trace, RecordKind::Api);
  CHECK(api.at(0, "domain") == "runtime");
  CHECK(api.at(1, "domain") == "driver");
  CHECK(api.at(1, "name") == "cuLaunchKernel");
  CHECK(api.at(3, "thread_id") == "4243");
  CHECK(api.at(0, "cbid") == "211");
  CHECK(api.at(0, "duration_ns") == "4000");

  const Table nvtx = readTable(trace, RecordKind::Nvtx);
  CHECK(nvtx.at(0, "type") == "PushPop");
  CHECK(nvtx.at(0, "color") == "#FF00FF00");
  CHECK(nvtx.at(1, "color") == "");  // no colour flag
  CHECK(nvtx.at(1, "depth") == "1");
  CHECK(nvtx.at(1, "category") == "3");
  CHECK(nvtx.at(2, "type") == "Mark");
  CHECK(nvtx.at(2, "duration_ns") == "0");
  CHECK(nvtx.at(3, "type") == "StartEnd");
  CHECK(nvtx.at(3, "range_id") == "77");
  CHECK(nvtx.at(3, "end_thread_id") == "4243");
  CHECK(nvtx.at(3, "payload") == "");
  CHECK(nvtx.at(3, "payload_type") == "");
  CHECK(nvtx.at(3, "open") == "0");

  const Table sync = readTable(trace, RecordKind::Sync);
  CHECK(sync.at(0, "type") == "StreamSynchronize");
  CHECK(sync.at(0, "stream") == "7");
  CHECK(sync.at(0, "event") == "");  // 0xffffffff: not applicable
  CHECK(sync.at(0, "correlation_id") == "16");

  const Table overhead = readTable(trace, RecordKind::Overhead);
  CHECK(overhead.at(0, "name") == "CUPTI buffer flush");
  CHECK(overhead.at(0, "thread_id") == "4242");
  CHECK(overhead.at(0, "device") == "");
  CHECK(overhead.at(0, "duration_ns") == "1000");
}

TEST_CASE("csv writes incomplete records with an empty duration", "[csv]") {
  Trace trace;
  KernelRecord k{};
  k.start = 5000;
  k.end = 0;  // CUPTI could not collect the end
  k.name = trace.strings.intern("k");
  trace.store.add(k);
  ApiRecord a{};
  a.start = 9000;
  a.end = 8000;  // end before start
  a.name = trace.strings.intern("cudaFree");
  trace.store.add(a);

  const Table kernels = readTable(trace, RecordKind::Kernel);
  REQUIRE(kernels.rows.size() == 1);
  CHECK(kernels.at(0, "start_ns") == "5000");
  CHECK(kernels.at(0, "end_ns") == "0");
  CHECK(kernels.at(0, "duration_ns") == "");
  const Table api = readTable(trace, RecordKind::Api);
  REQUIRE(api.rows.size() == 1);
  CHECK(api.at(0, "end_ns") == "8000");
  CHECK(api.at(0, "duration_ns") == "");
}

TEST_CASE("csv formats NVTX payloads by their type", "[csv]") {
  Trace trace;
  auto add = [&](NvtxPayload type, uint64_t bits) {
    NvtxRecord n{};
    n.type = static_cast<uint8_t>(NvtxType::Mark);
    n.payloadType = static_cast<uint8_t>(type);
    n.payload = bits;
    n.flags = kNvtxOpen;
    trace.store.add(n);
  };
  auto bitsOf = [](auto v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    return bits;
  };
  add(NvtxPayload::U64, std::numeric_limits<uint64_t>::max());
  add(NvtxPayload::I64, bitsOf(int64_t{-5}));
  add(NvtxPayload::Double, bitsOf(2.5));
  add(NvtxPayload::U32, 4000000000u);
  add(NvtxPayload::I32, bitsOf(int32_t{-7}) & 0xffffffffu);
  add(NvtxPayload::Float, bitsOf(0.25f));
  add(NvtxPayload::None, 1234);

  const Table t = readTable(trace, RecordKind::Nvtx);
  REQUIRE(t.rows.size() == 7);
  CHECK(t.at(0, "payload_type") == "u64");
  CHECK(t.at(0, "payload") == "18446744073709551615");
  CHECK(t.at(1, "payload_type") == "i64");
  CHECK(t.at(1, "payload") == "-5");
  CHECK(t.at(2, "payload_type") == "double");
  CHECK(t.at(2, "payload") == "2.5");
  CHECK(t.at(3, "payload") == "4000000000");
  CHECK(t.at(4, "payload_type") == "i32");
  CHECK(t.at(4, "payload") == "-7");
  CHECK(t.at(5, "payload_type") == "float");
  CHECK(t.at(5, "payload") == "0.25");
  CHECK(t.at(6, "payload_type") == "");
  CHECK(t.at(6, "payload") == "");
  CHECK(t.at(0, "open") == "1");
}

TEST_CASE("csv quotes fields with separators, line breaks or edge spaces", "[csv]") {
  Trace trace;
  const std::string names[] = {" leading", "trailing ", "a,b", "cr\ronly", "plain", ""};
  for (const auto& name : names) {
    ApiRecord a{};
    a.start = 1;
    a.end = 2;
    a.name = trace.strings.intern(name);
    trace.store.add(a);
  }
  const std::string raw = tableText(trace, RecordKind::Api);
  CHECK(raw.find("\" leading\"") != std::string::npos);
  CHECK(raw.find("\"trailing \"") != std::string::npos);
  CHECK(raw.find("\"a,b\"") != std::string::npos);
  CHECK(raw.find(",plain,") != std::string::npos);  // no quotes where none are needed
  const Table t = readTable(trace, RecordKind::Api);
  REQUIRE(t.rows.size() == 6);
  for (size_t i = 0; i < 6; ++i) CHECK(t.at(i, "name") == names[i]);
}

TEST_CASE("csv of an empty store is the header alone", "[csv]") {
  Trace trace;
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    const auto rows = parseCsv(tableText(trace, kind));
    REQUIRE(rows.size() == 1);
    CHECK(rows[0] == csvColumns(kind));
  }
}

TEST_CASE("csv of many records spans buffer flushes and store chunks", "[csv]") {
  Trace trace;
  const StringId name = trace.strings.intern("cudaLaunchKernel");
  constexpr uint32_t kCount = 20000;
  for (uint32_t i = 0; i < kCount; ++i) {
    ApiRecord a{};
    a.start = 1000ull * (i + 1);
    a.end = a.start + i;
    a.name = name;
    a.correlationId = i;
    trace.store.add(a);
  }
  const Table t = readTable(trace, RecordKind::Api);
  REQUIRE(t.rows.size() == kCount);
  for (uint32_t i = 0; i < kCount; i += 997) {
    CHECK(t.at(i, "correlation_id") == std::to_string(i));
    CHECK(t.at(i, "duration_ns") == std::to_string(i));
  }
  CHECK(t.at(kCount - 1, "correlation_id") == std::to_string(kCount - 1));
}

}  // namespace cuptitrace
