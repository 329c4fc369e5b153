// Other tools in the process that would use CUPTI themselves. CUPTI serves one
// subscriber per process: while cuptitrace holds it, a framework's own
// profiler (torch.profiler, jax.profiler) records no GPU activity. Found by
// the libraries the program has loaded when tracing starts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cuptitrace {

struct CuptiPeer {
  std::string library;  // the file name that gave it away (libtorch_cuda.so)
  std::string tool;     // what the user knows it as (torch.profiler)
};

// The peers among these loaded library paths (pure, for tests).
std::vector<CuptiPeer> cuptiPeersIn(const std::vector<std::string_view>& loadedPaths);
// The peers among the libraries loaded in this process now.
std::vector<CuptiPeer> loadedCuptiPeers();
// One line for the user about them; empty when there are none.
std::string cuptiPeersMessage(const std::vector<CuptiPeer>& peers);

}  // namespace cuptitrace
