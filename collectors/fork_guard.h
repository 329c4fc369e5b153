// A child made by fork() from a traced process: CUDA and CUPTI do not work
// there, and any lock another thread of the parent held at fork time stays
// locked for good. So the child runs untraced: our callbacks return at once,
// NVTX calls become no-ops before they reach CUPTI, nothing is written, and
// one line says so. The parent goes on tracing as before. A child that execs
// a program is traced on its own (the environment still names the library).
#pragma once

#include <atomic>

namespace cuptitrace {

namespace fork_detail {
extern std::atomic<bool> forkedChild;
}

// Registers the fork handler once; `announce`: say so in the child (once,
// at its first NVTX call or at its exit).
void installForkGuard(bool announce);

// True in a child forked after tracing started. Cheap: one relaxed load.
inline bool inForkedChild() { return fork_detail::forkedChild.load(std::memory_order_relaxed); }

// Writes the child's one line (write(2) only, no allocation), the first time.
void announceForkedChild();

// Remembers the NVTX function tables of one module (what NVTX passed to
// InitializeInjectionNvtx2), so a forked child can turn its NVTX calls into
// no-ops without entering CUPTI. Returns false when they cannot be read.
bool rememberNvtxModule(const void* getExportTable);

}  // namespace cuptitrace
