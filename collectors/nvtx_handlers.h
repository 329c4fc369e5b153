// Our own handlers of NVTX's range and mark calls. CUPTI's NVTX handler keeps
// about 100 bytes for every range a program opens, for as long as the process
// lives: ten million ranges cost a gigabyte beyond our own records. These
// handlers take the place of CUPTI's in NVTX's function table for the calls
// that carry ranges and marks (nvtxMarkEx/A, nvtxRangeStartEx/A, nvtxRangeEnd,
// nvtxRangePushEx/A, nvtxRangePop and their domain forms) and hand each call
// to a sink in the shape of CUPTI's NVTX callback, so everything downstream
// is unchanged. Domain creation, registered strings, names, categories,
// resources and sync objects stay with CUPTI (their handles stay opaque).
// The wide forms (nvtxMarkW, ...) are routed to these by nvtx_wide.h.
#pragma once

#include <cupti.h>

namespace cuptitrace {

// Receives each call as CUPTI's NVTX callback would have (cbid CUPTI_CBID_NVTX_*).
// Called on the program's thread; must not throw.
using NvtxSink = void (*)(void* context, CUpti_CallbackId cbid, const CUpti_NvtxData* data) noexcept;

// `getExportTable` is what NVTX passed to InitializeInjectionNvtx2; call after
// CUPTI's handlers are installed. Returns the number of slots taken over.
// The return values the program sees: nvtxRangeStart* gives ids counting
// from 1 for the process; nvtxRangePush* the 0-based depth of the thread's
// stack before the push, nvtxRangePop the depth after (-1 on an empty stack),
// one stack a thread across domains.
int installNvtxHandlers(const void* getExportTable, NvtxSink sink, void* context);

}  // namespace cuptitrace
