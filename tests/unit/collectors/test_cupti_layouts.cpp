// The start-up check of the loaded libcupti against the record layouts we
// read (collectors/cupti_layouts.h), and the decoder reading through the
// layout it chose.
#include <catch2/catch.hpp>
#include <string>

#include "activity_fixture.h"
#include "collectors/cupti_layouts.h"
#include "collectors/cupti_versions.h"
#include "collectors/decoder.h"

using namespace cuptitrace;
using cuptitrace::testing::asActivity;
using cuptitrace::testing::zeroed;

namespace {

const std::string kPath = "/opt/framework/lib/libcupti.so.13";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A kernel record as CUPTI 13.0 writes it (CUpti_ActivityKernel10).
CUpti_ActivityKernel10 kernel13_0() {
  auto k = zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 100;
  k.end = 250;
  k.correlationId = 9;
  k.gridX = 7;
  k.blockX = 128;
  k.streamId = 13;
  k.name = "k";
  return k;
}

}  // namespace

TEST_CASE("cupti layouts: 13.0 and 13.0 Update 1 write the records we read") {
  for (const uint32_t build : {130000u, 130001u}) {
    for (const uint32_t loaded : {130000u, 130001u}) {
      const LayoutDecision d = chooseRecordLayout(build, loaded, kPath);
      CHECK(d.supported());
      CHECK(d.layout == RecordLayout::Cupti130);
      CHECK(d.message.empty());
      CHECK(d.libraryPath == kPath);
    }
  }
  // This build is one of them, so the library it was built with is accepted.
  CHECK(chooseRecordLayout(CUPTI_API_VERSION, CUPTI_API_VERSION, kPath).supported());
}

TEST_CASE(
    "cupti layouts: another release is refused with one line naming both versions and the "
    "library") {
  // 13.1 and 13.2 (Kernel11, Device6, ...), a later 13.0 patch level not yet
  // checked, 12.9 Update 1 (Kernel9), 12.8, CUDA 11.8, and a failed query (0).
  for (const uint32_t loaded : {130100u, 130200u, 130002u, 28u, 26u, 18u, 0u}) {
    const LayoutDecision d = chooseRecordLayout(130001, loaded, kPath);
    INFO(d.message);
    CHECK_FALSE(d.supported());
    CHECK(d.layout == RecordLayout::None);
    CHECK(contains(d.message, "cuptitrace: "));
    CHECK(contains(d.message, std::to_string(loaded)));
    CHECK(contains(d.message, "13.0 (API 130001)"));
    CHECK(contains(d.message, kPath));
    CHECK(contains(d.message, "untraced"));
    CHECK(d.message.find('\n') == std::string::npos);
  }
  CHECK(contains(chooseRecordLayout(130001, 130200, kPath).message, "CUPTI 13.2 (API 130200)"));
  CHECK(contains(chooseRecordLayout(130001, 28, kPath).message, "CUPTI API 28"));
  CHECK(
      contains(chooseRecordLayout(130001, 28, kPath).message, "reads API versions 130000, 130001"));
}

TEST_CASE("cupti layouts: a build the table does not know accepts nothing") {
  const LayoutDecision d = chooseRecordLayout(130200, 130200, kPath);
  CHECK_FALSE(d.supported());
  CHECK(contains(d.message, "reads API versions none"));
}

TEST_CASE("cupti layouts: version names") {
  CHECK(cuptiVersionText(130001) == "13.0 (API 130001)");
  CHECK(cuptiVersionText(131203) == "13.12 (API 131203)");
  CHECK(cuptiVersionText(28) == "API 28");
  CHECK(layoutOf(130000) == RecordLayout::Cupti130);
  CHECK(layoutOf(130100) == RecordLayout::None);
}

TEST_CASE("cupti layouts: the decoder reads a 13.0 record through the chosen layout") {
  for (const uint32_t loaded : {130000u, 130001u}) {
    Trace trace;
    Decoder decoder(trace, chooseRecordLayout(CUPTI_API_VERSION, loaded, kPath).layout);
    auto k = kernel13_0();
    decoder.decode(asActivity(&k));
    const auto& kernels = trace.store.records<KernelRecord>();
    REQUIRE(kernels.size() == 1);
    CHECK(kernels[0].start == 100);
    CHECK(kernels[0].end == 250);
    CHECK(kernels[0].correlationId == 9);
    CHECK(kernels[0].gridX == 7);
    CHECK(kernels[0].blockX == 128);
    CHECK(kernels[0].streamId == 13);
  }
}

TEST_CASE("cupti layouts: with a refused layout no record is read, each is counted") {
  Trace trace;
  Decoder decoder(trace, chooseRecordLayout(CUPTI_API_VERSION, 130200, kPath).layout);
  auto k = kernel13_0();
  decoder.decode(asActivity(&k));
  decoder.decode(asActivity(&k));
  CHECK(trace.store.records<KernelRecord>().size() == 0);
  decoder.publishCounters();
  CHECK(trace.counters["dropped.unknown_cupti_layout"] == 2);
  CHECK(trace.counters["unknown_records"] == 0);
}

TEST_CASE("cupti layouts: decoders made before any check read the build's layout") {
  CHECK(activeRecordLayout() == layoutOf(CUPTI_API_VERSION));
}
