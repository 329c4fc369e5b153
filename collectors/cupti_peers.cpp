#include "collectors/cupti_peers.h"

#include <link.h>

namespace cuptitrace {
namespace {

struct KnownPeer {
  const char* fileStart;  // a loaded file whose name starts so
  const char* tool;
};

constexpr KnownPeer kKnownPeers[] = {
    {"libtorch_cuda.so", "torch.profiler"},
    {"libkineto", "torch.profiler"},
    {"xla_extension.so", "jax.profiler"},
    {"libjax_common.so", "jax.profiler"},
    {"libtensorflow_framework.so", "the TensorFlow profiler"},
};

std::string_view fileName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<CuptiPeer> cuptiPeersIn(const std::vector<std::string_view>& loadedPaths) {
  std::vector<CuptiPeer> peers;
  for (const std::string_view path : loadedPaths) {
    const std::string_view name = fileName(path);
    for (const KnownPeer& known : kKnownPeers) {
      if (name.rfind(known.fileStart, 0) != 0) continue;
      bool seen = false;
      for (const CuptiPeer& p : peers) seen = seen || p.tool == known.tool;
      if (!seen) peers.push_back({std::string(name), known.tool});
    }
  }
  return peers;
}

std::vector<CuptiPeer> loadedCuptiPeers() {
  std::vector<std::string> paths;
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
          static_cast<std::vector<std::string>*>(data)->emplace_back(info->dlpi_name);
        return 0;
      },
      &paths);
  std::vector<std::string_view> views(paths.begin(), paths.end());
  return cuptiPeersIn(views);
}

std::string cuptiPeersMessage(const std::vector<CuptiPeer>& peers) {
  if (peers.empty()) return {};
  std::string tools, libraries;
  for (size_t i = 0; i < peers.size(); ++i) {
    tools += (i == 0 ? "" : i + 1 == peers.size() ? " and " : ", ") + peers[i].tool;
    libraries += (i == 0 ? "" : ", ") + peers[i].library;
  }
  return "this program loads " + libraries + ": while cuptitrace traces, " + tools +
         " will record no GPU activity (CUPTI serves one tool per process); to use " + tools +
         " instead, run the program without cuptitrace (CUDA_INJECTION64_PATH unset)";
}

}  // namespace cuptitrace
