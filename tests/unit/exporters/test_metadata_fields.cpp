// The trace's metadata fields, described once (core/trace_metadata_fields.h):
// every field of the table is in the JSON metadata, comes back from the
// native format, and is in the .pftrace description where the table says,
// so a field added to the table is checked here with no other edit.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/trace_metadata_fields.h"
#include "exporters/json/chrome_json.h"
#include "exporters/merge.h"
#include "exporters/native/native.h"
#include "pftrace_readback.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using nlohmann::json;

namespace {

template <class T>
std::string textOf(const T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    return value;
  } else {
    return std::to_string(value);
  }
}

// A sample trace whose every metadata field has a value of its own, none
// of them one that a format leaves out.
void fillEveryField(Trace& t, const std::string& host) {
  testing::fillSampleTrace(t);
  uint64_t n = 100;
  visitMetadataFields(t.meta, [&](const MetadataField& f, auto& value) {
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, std::string>) {
      value = std::string(f.name) + " value";
    } else {
      value = static_cast<T>(n++);
    }
  });
  t.meta.hostName = host;
}

// Each field a format shows (`shows`; 0: every field saved in the native
// format), as its name and its value's text.
std::vector<std::pair<std::string, std::string>> fieldsOf(const TraceMetadata& m, uint8_t shows) {
  std::vector<std::pair<std::string, std::string>> fields;
  visitMetadataFields(m, [&](const MetadataField& f, const auto& value) {
    const bool shown = shows == 0 ? f.native != NativePlace::None : (f.shows & shows) != 0;
    if (shown) fields.emplace_back(f.name, textOf(value));
  });
  return fields;
}

}  // namespace

TEST_CASE("metadata fields: every field of the table is in the JSON metadata", "[metadata]") {
  Trace t;
  fillEveryField(t, "host");
  std::ostringstream out;
  writeChromeJson(t, out);
  const json meta = json::parse(out.str()).at("metadata");
  const auto fields = fieldsOf(t.meta, kShownInJson);
  CHECK(fields.size() >= 15);
  bool base = false;
  visitMetadataFields(t.meta, [&](const MetadataField& f, const auto& value) {
    if (!(f.shows & kShownInJson)) return;
    INFO(f.name);
    REQUIRE(meta.contains(f.name));
    if (f.timelineBase) {  // the base the events are relative to: the writer's
      base = true;
      return;
    }
    const json& shown = meta.at(f.name);
    CHECK((shown.is_string() ? shown.get<std::string>() : shown.dump()) == textOf(value));
  });
  CHECK(base);
}

TEST_CASE("metadata fields: JSON leaves out what the table says it may", "[metadata]") {
  Trace t;
  fillEveryField(t, "host");
  t.meta.rank = -1;
  t.meta.cuptiDetachedNs = 0;
  std::ostringstream out;
  writeChromeJson(t, out);
  const json meta = json::parse(out.str()).at("metadata");
  visitMetadataFields(t.meta, [&](const MetadataField& f, const auto& value) {
    if (!(f.shows & kShownInJson)) return;
    INFO(f.name);
    CHECK(meta.contains(f.name) == metadataFieldSaid(f, t.meta, value));
  });
  CHECK_FALSE(meta.contains("rank_source"));
  CHECK_FALSE(meta.contains("cupti_detached_ns"));
}

TEST_CASE("metadata fields: native write and read give every saved field back", "[metadata][native]") {
  Trace t;
  fillEveryField(t, "host");
  std::stringstream buffer;
  writeNative(t, buffer);
  Trace back;
  std::string error;
  REQUIRE(readNative(buffer, back, error));
  const auto written = fieldsOf(t.meta, 0);
  CHECK(written.size() >= 15);
  CHECK(fieldsOf(back.meta, 0) == written);

  // "No rank" reads back as -1, whichever negative value it was.
  t.meta.rank = -7;
  t.meta.localRank = -3;
  std::stringstream none;
  writeNative(t, none);
  Trace noRank;
  REQUIRE(readNative(none, noRank, error));
  CHECK(noRank.meta.rank == -1);
  CHECK(noRank.meta.localRank == -1);
}

TEST_CASE("metadata fields: the .pftrace description has every field marked for it", "[metadata][pftrace]") {
  Trace a, b;
  fillEveryField(a, "node1");
  fillEveryField(b, "node2");
  std::ostringstream out;
  writePerfettoProto(planMerge({{&a, "a.native"}, {&b, "b.native"}}), out);
  const auto d = testing::pftrace::decode(out.str());
  std::vector<const testing::pftrace::Event*> descriptions;
  for (const auto& e : d.instants)
    if (e.name == "cuptitrace") descriptions.push_back(&e);
  REQUIRE(descriptions.size() == 2);
  const auto& args = descriptions[0]->args;
  size_t fields = 0;
  visitMetadataFields(a.meta, [&](const MetadataField& f, const auto& value) {
    if (!(f.shows & (kShownInTimeline | kShownInMergedTimeline))) return;
    ++fields;
    INFO(f.name);
    REQUIRE(args.count(f.name) == 1);
    const auto& arg = args.at(f.name);
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, std::string>) {
      CHECK(arg.s == value);
    } else if (std::is_signed_v<T> && f.omitted != Omitted::WhenNegative) {
      CHECK(arg.i == static_cast<int64_t>(value));
    } else {
      CHECK(arg.u == static_cast<uint64_t>(value));
    }
  });
  CHECK(fields >= 8);

  // Alone, a trace does not say which it is.
  const auto alone = testing::pftrace::exportTrace(a);
  for (const auto& e : alone.instants) {
    if (e.name != "cuptitrace") continue;
    visitMetadataFields(a.meta, [&](const MetadataField& f, const auto&) {
      INFO(f.name);
      CHECK(e.args.count(f.name) == ((f.shows & kShownInTimeline) != 0 ? 1u : 0u));
    });
  }
}
