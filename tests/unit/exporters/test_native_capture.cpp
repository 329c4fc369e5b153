// Capture windows in the native trace: saved and read back; a trace written
// before they were saved reads as one with none.
#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>
#include <string>

#include "exporters/native/native.h"
#include "trace_fixture.h"

using namespace cuptitrace;

namespace {

constexpr uint64_t kMarker = 0x1122334455667788ull;  // a window start no other field holds

std::string nativeBytes(const Trace& trace) {
  std::ostringstream out;
  writeNative(trace, out);
  return out.str();
}

bool readBytes(const std::string& bytes, Trace& trace, std::string& error) {
  std::istringstream in(bytes);
  return readNative(in, trace, error);
}

// Where the METADATA section's payload starts in a file, and its length.
std::pair<size_t, uint64_t> metadataSection(const std::string& bytes) {
  size_t offset = 12;  // magic and version
  while (offset + 12 <= bytes.size()) {
    uint32_t tag = 0;
    uint64_t length = 0;
    std::memcpy(&tag, bytes.data() + offset, 4);
    std::memcpy(&length, bytes.data() + offset + 4, 8);
    if (tag == 2) return {offset + 12, length};
    offset += 12 + length;
  }
  FAIL("no METADATA section");
  return {0, 0};
}

// The METADATA section cut to its first `keep` bytes, its length set to match.
std::string cutMetadata(std::string bytes, size_t keep) {
  const auto [payload, length] = metadataSection(bytes);
  REQUIRE(keep <= length);
  bytes.erase(payload + keep, length - keep);
  const uint64_t newLength = keep;
  std::memcpy(&bytes[payload - 8], &newLength, 8);
  return bytes;
}

// Offset in the METADATA payload of the window count: 4 bytes before the marker.
size_t windowsOffset() {
  Trace marked;
  testing::fillSampleTrace(marked);
  marked.meta.captureWindows = {{kMarker, kMarker + 1}};
  const std::string bytes = nativeBytes(marked);
  const auto [payload, length] = metadataSection(bytes);
  const std::string body = bytes.substr(payload, length);
  char pattern[8];
  std::memcpy(pattern, &kMarker, 8);
  const size_t at = body.find(std::string(pattern, 8));
  REQUIRE(at != std::string::npos);
  REQUIRE(at >= 4);
  return at - 4;
}

}  // namespace

TEST_CASE("native: capture windows are saved and read back") {
  Trace trace;
  testing::fillSampleTrace(trace);
  trace.meta.captureWindows = {{1000, 2000}, {5000, 5000}, {7000, UINT64_MAX}};
  Trace back;
  std::string error;
  REQUIRE(readBytes(nativeBytes(trace), back, error));
  REQUIRE(back.meta.captureWindows.size() == 3);
  CHECK(back.meta.captureWindows[0].startNs == 1000);
  CHECK(back.meta.captureWindows[0].endNs == 2000);
  CHECK(back.meta.captureWindows[1].startNs == 5000);
  CHECK(back.meta.captureWindows[2].endNs == UINT64_MAX);
  // Records and the rest of the metadata are untouched by the new fields.
  CHECK(back.store.count(RecordKind::Kernel) == trace.store.count(RecordKind::Kernel));
  CHECK(back.meta.pid == trace.meta.pid);
  CHECK(back.counters == trace.counters);
}

TEST_CASE("native: a trace written before capture windows were saved still reads") {
  Trace trace;
  testing::fillSampleTrace(trace);
  REQUIRE(trace.meta.captureWindows.empty());
  // A writer of that time ended the metadata where the window count now starts.
  const std::string old = cutMetadata(nativeBytes(trace), windowsOffset());
  Trace back;
  std::string error;
  REQUIRE(readBytes(old, back, error));
  CHECK(back.meta.captureWindows.empty());
  CHECK(back.store.count(RecordKind::Kernel) == trace.store.count(RecordKind::Kernel));
  CHECK(back.counters == trace.counters);
}

TEST_CASE("native: a window cut short in the metadata is an error, not a crash") {
  Trace trace;
  testing::fillSampleTrace(trace);
  trace.meta.captureWindows = {{kMarker, kMarker + 1}};
  // The count says one window; the bytes hold its start only.
  const std::string cut = cutMetadata(nativeBytes(trace), windowsOffset() + 4 + 8);
  Trace back;
  std::string error;
  CHECK_FALSE(readBytes(cut, back, error));
  CHECK_THAT(error, Catch::Contains("METADATA"));
}
