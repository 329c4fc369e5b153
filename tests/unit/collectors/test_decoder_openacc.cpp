// The decoder on CUPTI's OpenACC records built by hand: every field kept,
// strings interned by their text.
#include <catch2/catch.hpp>

#include <string>

#include "activity_fixture.h"
#include "collectors/cupti_versions.h"
#include "collectors/decoder.h"

using namespace cuptitrace;
using cuptitrace::testing::asActivity;
using cuptitrace::testing::zeroed;

namespace {

template <typename A>
void fillCommon(A& a, CUpti_ActivityKind kind, CUpti_OpenAccEventKind event) {
  a.kind = kind;
  a.eventKind = event;
  a.parentConstruct = CUPTI_OPENACC_CONSTRUCT_KIND_PARALLEL;
  a.version = 2;
  a.implicit = 1;
  a.deviceType = 5;
  a.deviceNumber = 1;
  a.threadId = 3;
  a.async = 7;
  a.asyncMap = 9;
  a.lineNo = 50;
  a.endLineNo = 60;
  a.funcLineNo = 40;
  a.funcEndLineNo = 90;
  a.start = 1000;
  a.end = 1800;
  a.cuDeviceId = 2;
  a.cuContextId = 4;
  a.cuStreamId = 13;
  a.cuProcessId = 4242;
  a.cuThreadId = 4243;
  a.externalId = 77;
}

void checkCommon(const Trace& t, const OpenAccRecord& r, OpenAccType type, OpenAccEvent event) {
  CHECK(r.type == static_cast<uint8_t>(type));
  CHECK(r.eventKind == static_cast<uint8_t>(event));
  CHECK(r.parentConstruct == CUPTI_OPENACC_CONSTRUCT_KIND_PARALLEL);
  CHECK(r.version == 2);
  CHECK(r.implicit == 1);
  CHECK(r.deviceType == 5);
  CHECK(r.deviceNumber == 1);
  CHECK(r.threadId == 3);
  CHECK(r.async == 7);
  CHECK(r.asyncMap == 9);
  CHECK(r.lineNo == 50);
  CHECK(r.endLineNo == 60);
  CHECK(r.funcLineNo == 40);
  CHECK(r.funcEndLineNo == 90);
  CHECK(r.start == 1000);
  CHECK(r.end == 1800);
  CHECK(r.cuDeviceId == 2);
  CHECK(r.cuContextId == 4);
  CHECK(r.cuStreamId == 13);
  CHECK(r.cuProcessId == 4242);
  CHECK(r.cuThreadId == 4243);
  CHECK(r.externalId == 77);
  CHECK(t.strings.get(r.srcFile) == "/src/layers_acc.c");
  CHECK(t.strings.get(r.funcName) == "conv_forward");
}

}  // namespace

TEST_CASE("decoder: OpenACC data record keeps every field") {
  Trace trace;
  Decoder decoder(trace);
  auto a = zeroed<cupti::OpenAccDataActivity>();
  fillCommon(a, CUPTI_ACTIVITY_KIND_OPENACC_DATA, CUPTI_OPENACC_EVENT_KIND_ENQUEUE_UPLOAD);
  a.srcFile = "/src/layers_acc.c";
  a.funcName = "conv_forward";
  a.bytes = 4096;
  a.hostPtr = 0x7f0000001000ull;
  a.devicePtr = 0x7e0000002000ull;
  a.varName = "X[:in_size]";
  decoder.decode(asActivity(&a));
  const auto& records = trace.store.records<OpenAccRecord>();
  REQUIRE(records.size() == 1);
  const OpenAccRecord& r = records[0];
  checkCommon(trace, r, OpenAccType::Data, OpenAccEvent::EnqueueUpload);
  CHECK(r.bytes == 4096);
  CHECK(r.hostPtr == 0x7f0000001000ull);
  CHECK(r.devicePtr == 0x7e0000002000ull);
  CHECK(trace.strings.get(r.varName) == "X[:in_size]");
  CHECK(r.kernelName == kNoString);
  CHECK(r.numGangs == 0);
}

TEST_CASE("decoder: OpenACC launch record keeps every field") {
  Trace trace;
  Decoder decoder(trace);
  auto a = zeroed<cupti::OpenAccLaunchActivity>();
  fillCommon(a, CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH, CUPTI_OPENACC_EVENT_KIND_ENQUEUE_LAUNCH);
  a.srcFile = "/src/layers_acc.c";
  a.funcName = "conv_forward";
  a.numGangs = 160;
  a.numWorkers = 4;
  a.vectorLength = 32;
  a.kernelName = "_12layers_acc_c_conv_forward_53_gpu";
  decoder.decode(asActivity(&a));
  const auto& records = trace.store.records<OpenAccRecord>();
  REQUIRE(records.size() == 1);
  const OpenAccRecord& r = records[0];
  checkCommon(trace, r, OpenAccType::Launch, OpenAccEvent::EnqueueLaunch);
  CHECK(r.numGangs == 160);
  CHECK(r.numWorkers == 4);
  CHECK(r.vectorLength == 32);
  CHECK(trace.strings.get(r.kernelName) == "_12layers_acc_c_conv_forward_53_gpu");
  CHECK(r.varName == kNoString);
}

TEST_CASE("decoder: OpenACC other record, unknown kinds and null strings") {
  Trace trace;
  Decoder decoder(trace);
  auto a = zeroed<cupti::OpenAccOtherActivity>();
  fillCommon(a, CUPTI_ACTIVITY_KIND_OPENACC_OTHER, CUPTI_OPENACC_EVENT_KIND_WAIT);
  a.srcFile = "/src/layers_acc.c";
  a.funcName = "conv_forward";
  decoder.decode(asActivity(&a));
  // A newer runtime's event and construct kinds are kept as unknown, never misnamed.
  auto b = zeroed<cupti::OpenAccOtherActivity>();
  b.kind = CUPTI_ACTIVITY_KIND_OPENACC_OTHER;
  b.eventKind = static_cast<CUpti_OpenAccEventKind>(99);
  b.parentConstruct = static_cast<CUpti_OpenAccConstructKind>(99);
  // GCC's libgomp gives -1 for every line it does not know.
  b.lineNo = 0xffffffffu;
  b.funcLineNo = 0xffffffffu;
  decoder.decode(asActivity(&b));
  const auto& records = trace.store.records<OpenAccRecord>();
  REQUIRE(records.size() == 2);
  checkCommon(trace, records[0], OpenAccType::Other, OpenAccEvent::Wait);
  CHECK(records[1].eventKind == 0);
  CHECK(records[1].parentConstruct == 0);
  CHECK(records[1].lineNo == 0);
  CHECK(records[1].funcLineNo == 0);
  CHECK(records[1].srcFile == kNoString);
  CHECK(records[1].funcName == kNoString);
  CHECK(decoder.unknown() == 0);
}

TEST_CASE("decoder: OpenACC strings are interned by text, not by address") {
  Trace trace;
  Decoder decoder(trace);
  // The runtime may free a name and reuse its memory for another.
  char buffer[32] = "a[:n]";
  auto a = zeroed<cupti::OpenAccDataActivity>();
  a.kind = CUPTI_ACTIVITY_KIND_OPENACC_DATA;
  a.eventKind = CUPTI_OPENACC_EVENT_KIND_ENQUEUE_UPLOAD;
  a.varName = buffer;
  decoder.decode(asActivity(&a));
  std::snprintf(buffer, sizeof buffer, "%s", "b[:m]");
  decoder.decode(asActivity(&a));
  const auto& records = trace.store.records<OpenAccRecord>();
  REQUIRE(records.size() == 2);
  CHECK(trace.strings.get(records[0].varName) == "a[:n]");
  CHECK(trace.strings.get(records[1].varName) == "b[:m]");
}
