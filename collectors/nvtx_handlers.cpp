#include "collectors/nvtx_handlers.h"

#include <generated_nvtx_meta.h>
#include <nvtx3/nvToolsExt.h>

#include <atomic>

namespace cuptitrace {
namespace {

std::atomic<void*> gContext{nullptr};
std::atomic<NvtxSink> gSink{nullptr};
std::atomic<uint64_t> gNextRangeId{1};
thread_local int tDepth = 0;

template <typename Params>
void deliver(CUpti_CallbackId cbid, const char* name, const Params& params, const void* result) noexcept {
  const NvtxSink sink = gSink.load(std::memory_order_acquire);
  if (sink == nullptr) return;
  const CUpti_NvtxData data{name, &params, result};
  sink(gContext.load(std::memory_order_acquire), cbid, &data);
}

void NVTX_API markEx(const nvtxEventAttributes_t* attributes) noexcept {
  deliver(CUPTI_CBID_NVTX_nvtxMarkEx, "nvtxMarkEx", nvtxMarkEx_params{attributes}, nullptr);
}
void NVTX_API markA(const char* message) noexcept {
  deliver(CUPTI_CBID_NVTX_nvtxMarkA, "nvtxMarkA", nvtxMarkA_params{message}, nullptr);
}
nvtxRangeId_t NVTX_API rangeStartEx(const nvtxEventAttributes_t* attributes) noexcept {
  const nvtxRangeId_t id = gNextRangeId.fetch_add(1, std::memory_order_relaxed);
  deliver(CUPTI_CBID_NVTX_nvtxRangeStartEx, "nvtxRangeStartEx", nvtxRangeStartEx_params{attributes}, &id);
  return id;
}
nvtxRangeId_t NVTX_API rangeStartA(const char* message) noexcept {
  const nvtxRangeId_t id = gNextRangeId.fetch_add(1, std::memory_order_relaxed);
  deliver(CUPTI_CBID_NVTX_nvtxRangeStartA, "nvtxRangeStartA", nvtxRangeStartA_params{message}, &id);
  return id;
}
void NVTX_API rangeEnd(nvtxRangeId_t id) noexcept {
  deliver(CUPTI_CBID_NVTX_nvtxRangeEnd, "nvtxRangeEnd", nvtxRangeEnd_params{id}, nullptr);
}
int pushed() noexcept { return tDepth++; }
int popped() noexcept { return tDepth > 0 ? --tDepth : -1; }
int NVTX_API rangePushEx(const nvtxEventAttributes_t* attributes) noexcept {
  const int level = pushed();
  deliver(CUPTI_CBID_NVTX_nvtxRangePushEx, "nvtxRangePushEx", nvtxRangePushEx_params{attributes}, &level);
  return level;
}
int NVTX_API rangePushA(const char* message) noexcept {
  const int level = pushed();
  deliver(CUPTI_CBID_NVTX_nvtxRangePushA, "nvtxRangePushA", nvtxRangePushA_params{message}, &level);
  return level;
}
int NVTX_API rangePop() noexcept {
  const int level = popped();
  deliver(CUPTI_CBID_NVTX_nvtxRangePop, "nvtxRangePop", nvtxRangePop_params{}, &level);
  return level;
}
void NVTX_API domainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) noexcept {
  deliver(CUPTI_CBID_NVTX_nvtxDomainMarkEx, "nvtxDomainMarkEx", nvtxDomainMarkEx_params{domain, {attributes}},
          nullptr);
}
nvtxRangeId_t NVTX_API domainRangeStartEx(nvtxDomainHandle_t domain,
                                          const nvtxEventAttributes_t* attributes) noexcept {
  const nvtxRangeId_t id = gNextRangeId.fetch_add(1, std::memory_order_relaxed);
  deliver(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, "nvtxDomainRangeStartEx",
          nvtxDomainRangeStartEx_params{domain, {attributes}}, &id);
  return id;
}
void NVTX_API domainRangeEnd(nvtxDomainHandle_t domain, nvtxRangeId_t id) noexcept {
  deliver(CUPTI_CBID_NVTX_nvtxDomainRangeEnd, "nvtxDomainRangeEnd", nvtxDomainRangeEnd_params{domain, {id}},
          nullptr);
}
int NVTX_API domainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) noexcept {
  const int level = pushed();
  deliver(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, "nvtxDomainRangePushEx",
          nvtxDomainRangePushEx_params{domain, {attributes}}, &level);
  return level;
}
int NVTX_API domainRangePop(nvtxDomainHandle_t domain) noexcept {
  const int level = popped();
  deliver(CUPTI_CBID_NVTX_nvtxDomainRangePop, "nvtxDomainRangePop", nvtxDomainRangePop_params{domain}, &level);
  return level;
}

struct Slot {
  unsigned id;
  NvtxFunctionPointer handler;
};

template <typename Fn>
NvtxFunctionPointer pointer(Fn fn) {
  return reinterpret_cast<NvtxFunctionPointer>(fn);
}

// Takes over the slots of `module` that hold a handler (CUPTI's): an empty
// slot stays empty, so what CUPTI does not handle stays a no-op.
int take(const NvtxExportTableCallbacks* callbacks, NvtxCallbackModule module, const Slot* slots, int count) {
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (!callbacks->GetModuleFunctionTable(module, &table, &size) || table == nullptr) return 0;
  int taken = 0;
  for (int i = 0; i < count; ++i) {
    if (slots[i].id >= size || table[slots[i].id] == nullptr || *table[slots[i].id] == nullptr) continue;
    __atomic_store_n(table[slots[i].id], slots[i].handler, __ATOMIC_RELEASE);
    ++taken;
  }
  return taken;
}

}  // namespace

int installNvtxHandlers(const void* getExportTable, NvtxSink sink, void* context) {
  if (getExportTable == nullptr || sink == nullptr) return 0;
  auto get = reinterpret_cast<NvtxGetExportTableFunc_t>(const_cast<void*>(getExportTable));
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr)
    return 0;
  gContext.store(context, std::memory_order_release);
  gSink.store(sink, std::memory_order_release);
  const Slot core[] = {
      {NVTX_CBID_CORE_MarkEx, pointer(&markEx)},
      {NVTX_CBID_CORE_MarkA, pointer(&markA)},
      {NVTX_CBID_CORE_RangeStartEx, pointer(&rangeStartEx)},
      {NVTX_CBID_CORE_RangeStartA, pointer(&rangeStartA)},
      {NVTX_CBID_CORE_RangeEnd, pointer(&rangeEnd)},
      {NVTX_CBID_CORE_RangePushEx, pointer(&rangePushEx)},
      {NVTX_CBID_CORE_RangePushA, pointer(&rangePushA)},
      {NVTX_CBID_CORE_RangePop, pointer(&rangePop)},
  };
  const Slot core2[] = {
      {NVTX_CBID_CORE2_DomainMarkEx, pointer(&domainMarkEx)},
      {NVTX_CBID_CORE2_DomainRangeStartEx, pointer(&domainRangeStartEx)},
      {NVTX_CBID_CORE2_DomainRangeEnd, pointer(&domainRangeEnd)},
      {NVTX_CBID_CORE2_DomainRangePushEx, pointer(&domainRangePushEx)},
      {NVTX_CBID_CORE2_DomainRangePop, pointer(&domainRangePop)},
  };
  return take(callbacks, NVTX_CB_MODULE_CORE, core, sizeof core / sizeof core[0]) +
         take(callbacks, NVTX_CB_MODULE_CORE2, core2, sizeof core2 / sizeof core2[0]);
}

}  // namespace cuptitrace
