// Our handlers of NVTX's range and mark calls: installed over CUPTI's in a
// stand-in for the tables NVTX hands a tool, each call reaches the sink in
// the shape of CUPTI's NVTX callback, and the program gets NVTX's return values.
#include <catch2/catch.hpp>

#include <generated_nvtx_meta.h>
#include <nvtx3/nvToolsExt.h>

#include <string>
#include <thread>
#include <vector>

#include "collectors/nvtx_handlers.h"

using namespace cuptitrace;

namespace {

void NVTX_API cuptiStandIn() {}  // what a slot held before: CUPTI's handler

NvtxFunctionPointer gCore[NVTX_CBID_CORE_SIZE] = {};
NvtxFunctionPointer* gCoreTable[NVTX_CBID_CORE_SIZE] = {};
NvtxFunctionPointer gCore2[NVTX_CBID_CORE2_SIZE] = {};
NvtxFunctionPointer* gCore2Table[NVTX_CBID_CORE2_SIZE] = {};

int NVTX_API getModuleFunctionTable(NvtxCallbackModule module, NvtxFunctionTable* out, unsigned* size) {
  if (module == NVTX_CB_MODULE_CORE) {
    for (unsigned i = 0; i < NVTX_CBID_CORE_SIZE; ++i) gCoreTable[i] = &gCore[i];
    *out = gCoreTable;
    *size = NVTX_CBID_CORE_SIZE;
    return 1;
  }
  if (module == NVTX_CB_MODULE_CORE2) {
    for (unsigned i = 0; i < NVTX_CBID_CORE2_SIZE; ++i) gCore2Table[i] = &gCore2[i];
    *out = gCore2Table;
    *size = NVTX_CBID_CORE2_SIZE;
    return 1;
  }
  return 0;
}
const NvtxExportTableCallbacks gCallbacks = {sizeof(NvtxExportTableCallbacks), getModuleFunctionTable};
const void* NVTX_API getExportTable(uint32_t id) { return id == NVTX_ETID_CALLBACKS ? &gCallbacks : nullptr; }

struct Call {
  CUpti_CallbackId cbid;
  std::string function;
  std::string message;           // A calls
  const void* attributes;        // Ex calls
  nvtxDomainHandle_t domain;     // domain calls
  uint64_t id;                   // nvtxRangeEnd's argument
  long long result;              // what functionReturnValue held, -999 when none
};
std::vector<Call> gCalls;
void* gContextSeen = nullptr;

void sink(void* context, CUpti_CallbackId cbid, const CUpti_NvtxData* data) noexcept {
  gContextSeen = context;
  Call c{cbid, data->functionName, "", nullptr, nullptr, 0, -999};
  const void* p = data->functionParams;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxMarkA: c.message = static_cast<const nvtxMarkA_params*>(p)->message; break;
    case CUPTI_CBID_NVTX_nvtxRangeStartA: c.message = static_cast<const nvtxRangeStartA_params*>(p)->message; break;
    case CUPTI_CBID_NVTX_nvtxRangePushA: c.message = static_cast<const nvtxRangePushA_params*>(p)->message; break;
    case CUPTI_CBID_NVTX_nvtxMarkEx: c.attributes = static_cast<const nvtxMarkEx_params*>(p)->eventAttrib; break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      c.attributes = static_cast<const nvtxRangePushEx_params*>(p)->eventAttrib;
      break;
    case CUPTI_CBID_NVTX_nvtxRangeEnd: c.id = static_cast<const nvtxRangeEnd_params*>(p)->id; break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const auto* d = static_cast<const nvtxDomainRangePushEx_params*>(p);
      c.domain = d->domain;
      c.attributes = d->core.eventAttrib;
      break;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      c.domain = static_cast<const nvtxDomainRangePop_params*>(p)->domain;
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd: {
      const auto* d = static_cast<const nvtxDomainRangeEnd_params*>(p);
      c.domain = d->domain;
      c.id = d->core.id;
      break;
    }
    default: break;
  }
  if (data->functionReturnValue != nullptr) {
    const bool startsRange = cbid == CUPTI_CBID_NVTX_nvtxRangeStartA || cbid == CUPTI_CBID_NVTX_nvtxRangeStartEx ||
                             cbid == CUPTI_CBID_NVTX_nvtxDomainRangeStartEx;
    c.result = startsRange ? static_cast<long long>(*static_cast<const nvtxRangeId_t*>(data->functionReturnValue))
                           : *static_cast<const int*>(data->functionReturnValue);
  }
  gCalls.push_back(c);
}

template <typename Fn>
Fn slot(NvtxFunctionPointer* table, unsigned id) {
  return reinterpret_cast<Fn>(table[id]);
}

void fillCupti() {
  for (auto& s : gCore) s = reinterpret_cast<NvtxFunctionPointer>(&cuptiStandIn);
  for (auto& s : gCore2) s = reinterpret_cast<NvtxFunctionPointer>(&cuptiStandIn);
}

}  // namespace

TEST_CASE("nvtx handlers: ranges and marks reach the sink as CUPTI's callbacks would") {
  fillCupti();
  gCore[NVTX_CBID_CORE_RangeStartEx] = nullptr;  // a slot CUPTI left empty stays empty
  int context = 0;
  REQUIRE(installNvtxHandlers(reinterpret_cast<const void*>(&getExportTable), &sink, &context) == 7 + 5);
  const auto standIn = reinterpret_cast<NvtxFunctionPointer>(&cuptiStandIn);
  CHECK(gCore[NVTX_CBID_CORE_RangeStartEx] == nullptr);
  CHECK(gCore[NVTX_CBID_CORE_RangePushA] != standIn);
  // The rest stay CUPTI's: names, categories, wide forms, domains, strings.
  CHECK(gCore[NVTX_CBID_CORE_NameOsThreadA] == standIn);
  CHECK(gCore[NVTX_CBID_CORE_RangePushW] == standIn);
  CHECK(gCore2[NVTX_CBID_CORE2_DomainCreateA] == standIn);
  CHECK(gCore2[NVTX_CBID_CORE2_DomainRegisterStringA] == standIn);
  CHECK(gCore2[NVTX_CBID_CORE2_DomainRangePop] != standIn);

  gCalls.clear();
  using PushA = int (*)(const char*);
  using Pop = int (*)();
  using StartA = nvtxRangeId_t (*)(const char*);
  using End = void (*)(nvtxRangeId_t);
  using MarkEx = void (*)(const nvtxEventAttributes_t*);
  using DomainPush = int (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t*);
  using DomainPop = int (*)(nvtxDomainHandle_t);
  using DomainEnd = void (*)(nvtxDomainHandle_t, nvtxRangeId_t);

  // Push returns the depth before it, pop the depth after; an extra pop -1.
  CHECK(slot<PushA>(gCore, NVTX_CBID_CORE_RangePushA)("outer") == 0);
  CHECK(slot<PushA>(gCore, NVTX_CBID_CORE_RangePushA)("inner") == 1);
  CHECK(slot<Pop>(gCore, NVTX_CBID_CORE_RangePop)() == 1);
  CHECK(slot<Pop>(gCore, NVTX_CBID_CORE_RangePop)() == 0);
  CHECK(slot<Pop>(gCore, NVTX_CBID_CORE_RangePop)() == -1);
  REQUIRE(gCalls.size() == 5);
  CHECK(gContextSeen == &context);
  CHECK(gCalls[0].cbid == CUPTI_CBID_NVTX_nvtxRangePushA);
  CHECK(gCalls[0].function == "nvtxRangePushA");
  CHECK(gCalls[0].message == "outer");
  CHECK(gCalls[0].result == 0);
  CHECK(gCalls[1].message == "inner");
  CHECK(gCalls[2].cbid == CUPTI_CBID_NVTX_nvtxRangePop);
  CHECK(gCalls[4].result == -1);

  // Start/end ranges: distinct ids, the sink sees the id the program gets.
  gCalls.clear();
  const nvtxRangeId_t a = slot<StartA>(gCore, NVTX_CBID_CORE_RangeStartA)("load");
  const nvtxRangeId_t b = slot<StartA>(gCore, NVTX_CBID_CORE_RangeStartA)("save");
  CHECK(a != 0);
  CHECK(b != a);
  slot<End>(gCore, NVTX_CBID_CORE_RangeEnd)(a);
  REQUIRE(gCalls.size() == 3);
  CHECK(gCalls[0].result == static_cast<long long>(a));
  CHECK(gCalls[1].message == "save");
  CHECK(gCalls[2].cbid == CUPTI_CBID_NVTX_nvtxRangeEnd);
  CHECK(gCalls[2].id == a);

  // Event attributes and domains pass through untouched.
  gCalls.clear();
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  const auto domain = reinterpret_cast<nvtxDomainHandle_t>(0x5678);
  slot<MarkEx>(gCore, NVTX_CBID_CORE_MarkEx)(&attributes);
  CHECK(slot<DomainPush>(gCore2, NVTX_CBID_CORE2_DomainRangePushEx)(domain, &attributes) == 0);
  CHECK(slot<DomainPop>(gCore2, NVTX_CBID_CORE2_DomainRangePop)(domain) == 0);
  slot<DomainEnd>(gCore2, NVTX_CBID_CORE2_DomainRangeEnd)(domain, 42);
  REQUIRE(gCalls.size() == 4);
  CHECK(gCalls[0].cbid == CUPTI_CBID_NVTX_nvtxMarkEx);
  CHECK(gCalls[0].attributes == &attributes);
  CHECK(gCalls[1].cbid == CUPTI_CBID_NVTX_nvtxDomainRangePushEx);
  CHECK(gCalls[1].domain == domain);
  CHECK(gCalls[1].attributes == &attributes);
  CHECK(gCalls[2].domain == domain);
  CHECK(gCalls[3].domain == domain);
  CHECK(gCalls[3].id == 42);
}

TEST_CASE("nvtx handlers: each thread has its own push depth") {
  fillCupti();
  int context = 0;
  REQUIRE(installNvtxHandlers(reinterpret_cast<const void*>(&getExportTable), &sink, &context) > 0);
  using PushA = int (*)(const char*);
  const auto push = slot<PushA>(gCore, NVTX_CBID_CORE_RangePushA);
  gCalls.clear();
  CHECK(push("main") == 0);
  int other = -5;
  std::thread([&] { other = push("worker"); }).join();  // the sink is not thread-safe: one at a time
  CHECK(other == 0);
  CHECK(push("main again") == 1);
}

TEST_CASE("nvtx handlers: nothing is installed without NVTX's tables or a sink") {
  CHECK(installNvtxHandlers(nullptr, &sink, nullptr) == 0);
  int context = 0;
  CHECK(installNvtxHandlers(reinterpret_cast<const void*>(&getExportTable), nullptr, &context) == 0);
}
