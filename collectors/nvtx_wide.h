// NVTX's wide-string calls (nvtxRangePushW, nvtxMarkW, nvtxRangeStartW, ...)
// reach no CUPTI callback in CUPTI 13.0: the program's range would silently
// vanish and its pop would close the wrong range. After CUPTI has installed
// its NVTX handlers we route each wide call to CUPTI's handler of the ASCII
// call, with the text converted to UTF-8, so it is recorded like any other.
// The CUDA and runtime modules' wide name calls (nvtxNameCuContextW,
// nvtxNameCuDeviceW, nvtxNameCuStreamW, nvtxNameCudaDeviceW,
// nvtxNameCudaStreamW) go the same way, so a handle named either way is named.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace cuptitrace {

// Conversions of wide text that failed (memory) into a trace's counters.
void publishWideNvtxFailures(std::map<std::string, uint64_t>& counters);

// `getExportTable` is what NVTX passed to InitializeInjectionNvtx2.
// Returns the number of wide calls routed.
int routeWideNvtxCalls(const void* getExportTable);

}  // namespace cuptitrace
