#include "collectors/nvtx_wide.h"

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCuda.h>

#include <atomic>

#include "core/fault_boundary.h"
#include "core/utf8.h"

namespace cuptitrace {
namespace {

using MarkA = void (*)(const char*);
using RangeStartA = nvtxRangeId_t (*)(const char*);
using RangePushA = int (*)(const char*);
using NameCategoryA = void (*)(uint32_t, const char*);
using NameOsThreadA = void (*)(uint32_t, const char*);
using NameCuContextA = void (*)(CUcontext, const char*);
using NameCuDeviceA = void (*)(CUdevice, const char*);
using NameCuStreamA = void (*)(CUstream, const char*);  // also the runtime's cudaStream_t
using NameCudaDeviceA = void (*)(int, const char*);

// CUPTI's handlers of the ASCII calls, captured once at NVTX initialization.
std::atomic<MarkA> gMarkA{nullptr};
std::atomic<RangeStartA> gRangeStartA{nullptr};
std::atomic<RangePushA> gRangePushA{nullptr};
std::atomic<NameCategoryA> gNameCategoryA{nullptr};
std::atomic<NameOsThreadA> gNameOsThreadA{nullptr};
std::atomic<NameCuContextA> gNameCuContextA{nullptr};
std::atomic<NameCuDeviceA> gNameCuDeviceA{nullptr};
std::atomic<NameCuStreamA> gNameCuStreamA{nullptr};
std::atomic<NameCudaDeviceA> gNameCudaDeviceA{nullptr};
std::atomic<NameCuStreamA> gNameCudaStreamA{nullptr};

// The program calls these directly (they sit in NVTX's function table): an
// exception must not reach it. Past a failure to convert (memory), the call
// still goes on, with an empty message, so that ranges keep their shape.
FaultBoundary gWideBoundary{"nvtx_wide"};

std::string utf8(const wchar_t* text) noexcept {
  std::string out;
  gWideBoundary.run([&] { out = wideToUtf8(text); });
  return out;
}

void markW(const wchar_t* message) noexcept {
  if (auto f = gMarkA.load()) f(utf8(message).c_str());
}
nvtxRangeId_t rangeStartW(const wchar_t* message) noexcept {
  auto f = gRangeStartA.load();
  return f ? f(utf8(message).c_str()) : 0;
}
int rangePushW(const wchar_t* message) noexcept {
  auto f = gRangePushA.load();
  return f ? f(utf8(message).c_str()) : -1;
}
// A wide name call (nvtxNameCategoryW, nvtxNameCuStreamW, ...): the handle or
// id passed on, the name in UTF-8. A null name is the program's mistake:
// nothing is named; nor is anything when the name could not be converted.
template <typename Handle, std::atomic<void (*)(Handle, const char*)>& ascii>
void nameW(Handle handle, const wchar_t* name) noexcept {
  auto f = ascii.load();
  if (f == nullptr || name == nullptr) return;
  const std::string text = utf8(name);
  if (!text.empty() || *name == L'\0') f(handle, text.c_str());
}

// Reads the ASCII slot into `saved` and, when set, points the wide slot at `wrapper`.
template <typename Fn, typename Wrapper>
bool route(NvtxFunctionTable table, unsigned size, unsigned asciiId, unsigned wideId,
           std::atomic<Fn>& saved, Wrapper wrapper) {
  if (asciiId >= size || wideId >= size || table[asciiId] == nullptr || table[wideId] == nullptr)
    return false;
  auto ascii = reinterpret_cast<Fn>(*table[asciiId]);
  if (ascii == nullptr) return false;
  saved.store(ascii);
  *table[wideId] = reinterpret_cast<NvtxFunctionPointer>(wrapper);
  return true;
}

}  // namespace

void publishWideNvtxFailures(std::map<std::string, uint64_t>& counters) { gWideBoundary.publish(counters); }

int routeWideNvtxCalls(const void* getExportTable) {
  if (getExportTable == nullptr) return 0;
  auto get = reinterpret_cast<NvtxGetExportTableFunc_t>(const_cast<void*>(getExportTable));
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr)
    return 0;
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  int routed = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) && table != nullptr) {
    routed += route(table, size, NVTX_CBID_CORE_MarkA, NVTX_CBID_CORE_MarkW, gMarkA, &markW);
    routed += route(table, size, NVTX_CBID_CORE_RangeStartA, NVTX_CBID_CORE_RangeStartW, gRangeStartA, &rangeStartW);
    routed += route(table, size, NVTX_CBID_CORE_RangePushA, NVTX_CBID_CORE_RangePushW, gRangePushA, &rangePushW);
    routed += route(table, size, NVTX_CBID_CORE_NameCategoryA, NVTX_CBID_CORE_NameCategoryW, gNameCategoryA,
                    &nameW<uint32_t, gNameCategoryA>);
    routed += route(table, size, NVTX_CBID_CORE_NameOsThreadA, NVTX_CBID_CORE_NameOsThreadW, gNameOsThreadA,
                    &nameW<uint32_t, gNameOsThreadA>);
  }
  // The driver-handle names live in a module of their own.
  table = nullptr;
  size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CUDA, &table, &size) && table != nullptr) {
    routed += route(table, size, NVTX_CBID_CUDA_NameCuContextA, NVTX_CBID_CUDA_NameCuContextW, gNameCuContextA,
                    &nameW<CUcontext, gNameCuContextA>);
    routed += route(table, size, NVTX_CBID_CUDA_NameCuDeviceA, NVTX_CBID_CUDA_NameCuDeviceW, gNameCuDeviceA,
                    &nameW<CUdevice, gNameCuDeviceA>);
    routed += route(table, size, NVTX_CBID_CUDA_NameCuStreamA, NVTX_CBID_CUDA_NameCuStreamW, gNameCuStreamA,
                    &nameW<CUstream, gNameCuStreamA>);
  }
  // And the runtime's (cudaStream_t is the driver's CUstream).
  table = nullptr;
  size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CUDART, &table, &size) && table != nullptr) {
    routed += route(table, size, NVTX_CBID_CUDART_NameCudaDeviceA, NVTX_CBID_CUDART_NameCudaDeviceW,
                    gNameCudaDeviceA, &nameW<int, gNameCudaDeviceA>);
    routed += route(table, size, NVTX_CBID_CUDART_NameCudaStreamA, NVTX_CBID_CUDART_NameCudaStreamW,
                    gNameCudaStreamA, &nameW<CUstream, gNameCudaStreamA>);
  }
  return routed;
}

}  // namespace cuptitrace
