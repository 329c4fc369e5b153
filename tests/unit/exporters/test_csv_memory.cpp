// CSV tables of memory, memory pool, unified memory and graph records.
#include <catch2/catch.hpp>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "exporters/csv/csv.h"
#include "memory_fixture.h"

using namespace cuptitrace;

namespace {

// These tables hold no text that needs quoting: a plain split reads them.
std::vector<std::vector<std::string>> rows(const Trace& trace, RecordKind kind) {
  std::ostringstream out;
  writeCsvTable(trace, kind, out);
  std::vector<std::vector<std::string>> result;
  std::istringstream in(out.str());
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
      const size_t comma = line.find(',', start);
      fields.push_back(line.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    result.push_back(fields);
  }
  return result;
}

std::string at(const std::vector<std::vector<std::string>>& t, size_t row, const std::string& column) {
  for (size_t c = 0; c < t.at(0).size(); ++c)
    if (t[0][c] == column) return t.at(row + 1).at(c);
  throw std::runtime_error("no column " + column);
}

}  // namespace

TEST_CASE("csv memory: one row per allocation and free, words for kinds, hex addresses") {
  Trace t;
  testing::addAllocation(t, 5000, 0x7f0000001000ull, 1ull << 33, 1, MemoryKind::Managed, 31);
  MemoryRecord f{};
  f.timestamp = 9000;
  f.address = 0x7f0000001000ull;
  f.bytes = 1ull << 33;
  f.correlationId = 40;
  f.deviceId = 1;
  f.contextId = 2;
  f.streamId = 14;
  f.operation = static_cast<uint8_t>(MemoryOp::Release);
  f.memoryKind = static_cast<uint8_t>(MemoryKind::Device);
  f.poolType = static_cast<uint8_t>(PoolType::Local);
  f.poolAddress = 0x7f0000000000ull;
  f.isAsync = 1;
  t.store.add(f);

  const auto table = rows(t, RecordKind::Memory);
  REQUIRE(table.size() == 3);
  CHECK(table[0] == csvColumns(RecordKind::Memory));
  CHECK(std::string(csvTableName(RecordKind::Memory)) == "memory");
  CHECK(at(table, 0, "timestamp_ns") == "5000");
  CHECK(at(table, 0, "operation") == "alloc");
  CHECK(at(table, 0, "memory_kind") == "Managed");
  CHECK(at(table, 0, "bytes") == "8589934592");
  CHECK(at(table, 0, "address") == "0x7f0000001000");
  CHECK(at(table, 0, "stream") == "");  // not stream-ordered
  CHECK(at(table, 0, "pool_type") == "");
  CHECK(at(table, 0, "pool_address") == "");
  CHECK(at(table, 0, "async") == "0");
  CHECK(at(table, 1, "operation") == "free");
  CHECK(at(table, 1, "stream") == "14");
  CHECK(at(table, 1, "correlation_id") == "40");
  CHECK(at(table, 1, "pool_type") == "local");
  CHECK(at(table, 1, "pool_address") == "0x7f0000000000");
  CHECK(at(table, 1, "async") == "1");
}

TEST_CASE("csv memory_pool: a trim keeps its minimum, other operations leave it empty") {
  Trace t;
  MemoryPoolRecord p{};
  p.timestamp = 77;
  p.address = 0x1000;
  p.releaseThreshold = 1 << 20;
  p.size = 1 << 21;
  p.utilizedSize = 4096;
  p.minBytesToKeep = 512;
  p.correlationId = 3;
  p.deviceId = 0;
  p.operation = static_cast<uint8_t>(PoolOp::Created);
  p.poolType = static_cast<uint8_t>(PoolType::Local);
  t.store.add(p);
  p.operation = static_cast<uint8_t>(PoolOp::Trimmed);
  p.isManaged = 1;
  t.store.add(p);
  const auto table = rows(t, RecordKind::MemoryPool);
  REQUIRE(table.size() == 3);
  CHECK(table[0] == csvColumns(RecordKind::MemoryPool));
  CHECK(at(table, 0, "operation") == "created");
  CHECK(at(table, 0, "min_bytes_to_keep") == "");
  CHECK(at(table, 0, "size_bytes") == "2097152");
  CHECK(at(table, 0, "utilized_bytes") == "4096");
  CHECK(at(table, 0, "release_threshold_bytes") == "1048576");
  CHECK(at(table, 0, "managed") == "0");
  CHECK(at(table, 1, "operation") == "trimmed");
  CHECK(at(table, 1, "min_bytes_to_keep") == "512");
  CHECK(at(table, 1, "managed") == "1");
}

TEST_CASE("csv uvm: each value in the column of what it means") {
  Trace t;
  testing::addUvm(t, UvmKind::BytesHtoD, 100, 300, 65536, 2);
  UvmRecord g{};
  g.kind = static_cast<uint8_t>(UvmKind::GpuPageFault);
  g.start = 400;
  g.end = 500;
  g.value = 3;
  g.srcId = 2;
  g.deviceId = 2;
  g.accessType = 2;  // write
  t.store.add(g);
  testing::addUvm(t, UvmKind::CpuPageFault, 600, 600, 0x401000, kUvmNoDevice);
  UvmRecord d{};
  d.kind = static_cast<uint8_t>(UvmKind::BytesDtoH);
  d.start = 700;
  d.end = 0;  // missing
  d.value = 4096;
  d.cause = 4;  // eviction
  d.srcId = 2;
  d.deviceId = 2;
  t.store.add(d);

  const auto table = rows(t, RecordKind::Uvm);
  REQUIRE(table.size() == 5);
  CHECK(table[0] == csvColumns(RecordKind::Uvm));
  CHECK(at(table, 0, "kind") == "HtoD");
  CHECK(at(table, 0, "duration_ns") == "200");
  CHECK(at(table, 0, "device") == "2");
  CHECK(at(table, 0, "bytes") == "65536");
  CHECK(at(table, 0, "fault_groups") == "");
  CHECK(at(table, 0, "pc") == "");
  CHECK(at(table, 1, "kind") == "GPU page fault");
  CHECK(at(table, 1, "fault_groups") == "3");
  CHECK(at(table, 1, "bytes") == "");
  CHECK(at(table, 1, "access") == "write");
  CHECK(at(table, 1, "dst_id") == "");
  CHECK(at(table, 2, "kind") == "CPU page fault");
  CHECK(at(table, 2, "device") == "");
  CHECK(at(table, 2, "src_id") == "");
  CHECK(at(table, 2, "pc") == "0x401000");
  CHECK(at(table, 2, "duration_ns") == "0");
  CHECK(at(table, 3, "kind") == "DtoH");
  CHECK(at(table, 3, "duration_ns") == "");
  CHECK(at(table, 3, "cause") == "eviction");
}

TEST_CASE("csv graphs: one row per graph launch") {
  Trace t;
  testing::addGraphLaunch(t, 1000, 4000, 9, 55, 13);
  const auto table = rows(t, RecordKind::Graph);
  REQUIRE(table.size() == 2);
  CHECK(table[0] == csvColumns(RecordKind::Graph));
  CHECK(std::string(csvTableName(RecordKind::Graph)) == "graphs");
  CHECK(at(table, 0, "duration_ns") == "3000");
  CHECK(at(table, 0, "graph_id") == "9");
  CHECK(at(table, 0, "correlation_id") == "55");
  CHECK(at(table, 0, "stream") == "13");
}
