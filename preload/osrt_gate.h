// The preload library's side of osrt: whether the wrappers record, on which
// threads, and where the measured calls go (the sink the tracer attached,
// preload/osrt_abi.h). The wrappers run inside every wrapped call of every
// process that preloads the library, with or without CUDA, from before the
// tracer starts to after it ends: this is what keeps them harmless.
//
// - Until a tracer arms it, a wrapper costs one load and one branch.
// - Calls on the tracer's own threads, and on CUPTI's, are never recorded.
// - Calls made while the thread is already inside a recorded call or inside
//   the tracer's own code pass straight through: no recursion, no records of
//   ourselves.
// - No C++ runtime: nothing here allocates, throws or needs libstdc++.
#pragma once

#include <atomic>
#include <cstdint>

#include "preload/osrt_abi.h"

namespace cuptitrace::preload {

namespace detail {
extern std::atomic<bool> armed;
}

// One relaxed load: the whole cost of a wrapper while recording is off.
inline bool armed() { return detail::armed.load(std::memory_order_relaxed); }

// Around one wrapped call, once armed() said yes: begin() before the real
// call (false: this call is not recorded), end() after it. end() keeps errno.
bool begin(uint64_t* start);
void end(uint16_t call, uint64_t start, uint32_t error);

}  // namespace cuptitrace::preload

// The one versioned entry point the tracer looks up (exported by the library).
extern "C" __attribute__((visibility("default"))) const cuptitrace_osrt_v1*
cuptitrace_osrt_v1_attach(void);
