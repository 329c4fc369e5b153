// The CSV writers keep the names they looked up last by string id, and the
// kernels' and calls' names as the fields they write: with more names than
// they keep, ids that fall on the same place, names that need quoting or
// replacing and names too long to keep, every row still names its own
// record's strings, by one thread and by several.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "core/demangle.h"
#include "core/utf8.h"
#include "csv_table.h"
#include "exporters/csv/csv.h"

namespace cuptitrace {
namespace {

// Name i: mangled (demangles to "ns::kI()"), with a comma, an invalid byte,
// 600 or 5000 characters (more than a writer keeps) now and then.
std::string kernelName(int i) {
  if (i % 17 == 0) return "huge kernel " + std::string(5000, static_cast<char>('a' + i % 26)) + std::to_string(i);
  if (i % 13 == 0) return "long kernel " + std::string(600, static_cast<char>('a' + i % 26)) + std::to_string(i);
  if (i % 11 == 0) return "bad \xFF kernel " + std::to_string(i);
  if (i % 7 == 0) return "kernel, " + std::to_string(i) + " \"quoted\"";
  const std::string k = "k" + std::to_string(i);
  return "_ZN2ns" + std::to_string(k.size()) + k + "Ev";
}

}  // namespace

TEST_CASE("csv rows name their own strings, however many names share the writers' places", "[csv][parallel]") {
  Trace t;
  constexpr int kNames = 5000;  // more than the places for names a writer keeps
  std::vector<StringId> kernels, calls;
  for (int i = 0; i < kNames; ++i) {
    kernels.push_back(t.strings.intern(kernelName(i)));
    calls.push_back(t.strings.intern("cudaCall" + std::to_string(i) + (i % 9 == 0 ? ", \xC3\xA9" : "") +
                                     (i % 10 == 0 ? std::string(300, 'c') : "")));
  }
  constexpr uint32_t kRecords = 30000;
  for (uint32_t i = 0; i < kRecords; ++i) {
    // Names in an order that returns to each often, over ids 4096 and 1024 apart.
    const size_t n = (i * 4099u + (i / 3) * 1024u) % kNames;
    ApiRecord a{};
    a.start = 1000 + 10 * uint64_t{i};
    a.end = a.start + 5;
    a.name = calls[n];
    a.correlationId = i + 1;
    a.domain = static_cast<uint8_t>(ApiDomain::Runtime);
    t.store.add(a);
    KernelRecord k{};
    k.start = a.start + 2;
    k.end = k.start + 3;
    k.name = kernels[n];
    k.correlationId = i + 1;
    t.store.add(k);
  }

  // Several threads write one thread's bytes.
  for (const RecordKind kind : {RecordKind::Kernel, RecordKind::Api})
    CHECK(testing::csvTableText(t, kind, 3, 1000) == testing::csvTableText(t, kind));

  const auto kernelRows = testing::csvTableRows(t, RecordKind::Kernel);
  const auto callRows = testing::csvTableRows(t, RecordKind::Api);
  REQUIRE(kernelRows.size() == kRecords + 1);
  REQUIRE(callRows.size() == kRecords + 1);
  const size_t name = testing::csvColumn(kernelRows[0], "name");
  const size_t mangled = testing::csvColumn(kernelRows[0], "mangled_name");
  const size_t callName = testing::csvColumn(callRows[0], "name");
  size_t wrong = 0, quoted = 0, replaced = 0, demangled = 0;
  for (uint32_t i = 0; i < kRecords; ++i) {
    const KernelRecord& k = t.store.records<KernelRecord>()[i];
    const ApiRecord& a = t.store.records<ApiRecord>()[i];
    const std::string text(t.strings.get(k.name));
    const std::vector<std::string>& row = kernelRows[i + 1];
    wrong += row[mangled] != validUtf8(text) || row[name] != validUtf8(demangle(text));
    wrong += callRows[i + 1][callName] != validUtf8(t.strings.get(a.name));
    quoted += row[mangled].find(',') != std::string::npos;
    replaced += row[mangled].find("\xEF\xBF\xBD") != std::string::npos;
    demangled += row[name].rfind("ns::k", 0) == 0;
  }
  CHECK(wrong == 0);
  // What was compared holds names quoted, replaced and demangled.
  CHECK(quoted > 0);
  CHECK(replaced > 0);
  CHECK(demangled > 0);
  std::printf("csv strings: %u kernels and calls over %d names each, %zu rows wrong\n", kRecords, kNames, wrong);
}

}  // namespace cuptitrace
