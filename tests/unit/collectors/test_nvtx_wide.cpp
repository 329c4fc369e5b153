// The wide-string name calls of the CUDA modules (nvtxNameCuContextW,
// nvtxNameCudaStreamW, ...) routed to the handlers of their A calls, the text
// converted to UTF-8, through a stand-in for the tables NVTX hands a tool.
#include <catch2/catch.hpp>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCuda.h>

#include <string>

#include "collectors/nvtx_wide.h"

using namespace cuptitrace;

namespace {

// What the stand-in for CUPTI's nvtxNameCuContextA handler was called with.
CUcontext gNamedContext = nullptr;
std::string gNamedAs;
int gCalls = 0;

void NVTX_API asciiHandler(CUcontext context, const char* name) {
  gNamedContext = context;
  gNamedAs = name;
  ++gCalls;
}
void NVTX_API wideHandler(CUcontext, const wchar_t*) { gCalls += 100; }  // what routing replaces

// What the stand-in for CUPTI's nvtxNameCudaStreamA handler was called with.
CUstream gNamedStream = nullptr;
std::string gStreamNamedAs;
void NVTX_API streamAsciiHandler(CUstream stream, const char* name) {
  gNamedStream = stream;
  gStreamNamedAs = name;
}
void NVTX_API streamWideHandler(CUstream, const wchar_t*) {}

// The CUDA and runtime modules' slots; the core module is absent.
NvtxFunctionPointer gSlots[NVTX_CBID_CUDA_SIZE] = {};
NvtxFunctionPointer* gTable[NVTX_CBID_CUDA_SIZE] = {};
NvtxFunctionPointer gRtSlots[NVTX_CBID_CUDART_SIZE] = {};
NvtxFunctionPointer* gRtTable[NVTX_CBID_CUDART_SIZE] = {};

int NVTX_API getModuleFunctionTable(NvtxCallbackModule module, NvtxFunctionTable* out, unsigned* size) {
  if (module == NVTX_CB_MODULE_CUDART) {
    for (unsigned i = 0; i < NVTX_CBID_CUDART_SIZE; ++i) gRtTable[i] = &gRtSlots[i];
    *out = gRtTable;
    *size = NVTX_CBID_CUDART_SIZE;
    return 1;
  }
  if (module != NVTX_CB_MODULE_CUDA) return 0;
  for (unsigned i = 0; i < NVTX_CBID_CUDA_SIZE; ++i) gTable[i] = &gSlots[i];
  *out = gTable;
  *size = NVTX_CBID_CUDA_SIZE;
  return 1;
}
const NvtxExportTableCallbacks gCallbacks = {sizeof(NvtxExportTableCallbacks), getModuleFunctionTable};
const void* NVTX_API getExportTable(uint32_t id) { return id == NVTX_ETID_CALLBACKS ? &gCallbacks : nullptr; }

}  // namespace

TEST_CASE("nvtx wide: nvtxNameCuContextW reaches the A handler as UTF-8") {
  gSlots[NVTX_CBID_CUDA_NameCuContextA] = reinterpret_cast<NvtxFunctionPointer>(&asciiHandler);
  gSlots[NVTX_CBID_CUDA_NameCuContextW] = reinterpret_cast<NvtxFunctionPointer>(&wideHandler);
  CHECK(routeWideNvtxCalls(reinterpret_cast<const void*>(&getExportTable)) == 1);
  CHECK(gSlots[NVTX_CBID_CUDA_NameCuContextA] == reinterpret_cast<NvtxFunctionPointer>(&asciiHandler));
  REQUIRE(gSlots[NVTX_CBID_CUDA_NameCuContextW] != reinterpret_cast<NvtxFunctionPointer>(&wideHandler));

  using WideCall = void(NVTX_API*)(CUcontext, const wchar_t*);
  const auto wide = reinterpret_cast<WideCall>(gSlots[NVTX_CBID_CUDA_NameCuContextW]);
  const auto context = reinterpret_cast<CUcontext>(0x1234);
  gCalls = 0;
  wide(context, L"r\u00e9seau \u2713");
  CHECK(gCalls == 1);
  CHECK(gNamedContext == context);
  CHECK(gNamedAs == "r\xC3\xA9seau \xE2\x9C\x93");
  // A null name is the program's mistake: nothing is named, nothing crashes.
  wide(context, nullptr);
  CHECK(gCalls == 1);
}

TEST_CASE("nvtx wide: nvtxNameCudaStreamW reaches the runtime module's A handler as UTF-8") {
  gRtSlots[NVTX_CBID_CUDART_NameCudaStreamA] = reinterpret_cast<NvtxFunctionPointer>(&streamAsciiHandler);
  gRtSlots[NVTX_CBID_CUDART_NameCudaStreamW] = reinterpret_cast<NvtxFunctionPointer>(&streamWideHandler);
  CHECK(routeWideNvtxCalls(reinterpret_cast<const void*>(&getExportTable)) >= 1);
  REQUIRE(gRtSlots[NVTX_CBID_CUDART_NameCudaStreamW] != reinterpret_cast<NvtxFunctionPointer>(&streamWideHandler));
  using WideCall = void(NVTX_API*)(CUstream, const wchar_t*);
  const auto wide = reinterpret_cast<WideCall>(gRtSlots[NVTX_CBID_CUDART_NameCudaStreamW]);
  const auto stream = reinterpret_cast<CUstream>(0x5678);
  wide(stream, L"d\u00e9bit");
  CHECK(gNamedStream == stream);
  CHECK(gStreamNamedAs == "d\xC3\xA9" "bit");
}
