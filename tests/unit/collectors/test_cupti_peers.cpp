// Framework profilers that would want CUPTI, found by the libraries loaded.
#include <catch2/catch.hpp>

#include "collectors/cupti_peers.h"

using namespace cuptitrace;

TEST_CASE("cupti peers: PyTorch is found by libtorch_cuda, once", "[peers]") {
  const auto peers = cuptiPeersIn({"/usr/lib/libc.so.6",
                                   "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so",
                                   "/venv/lib/python3.12/site-packages/torch/lib/libkineto.so"});
  REQUIRE(peers.size() == 1);
  CHECK(peers[0].tool == "torch.profiler");
  CHECK(peers[0].library == "libtorch_cuda.so");
  const std::string message = cuptiPeersMessage(peers);
  CHECK(message.find("torch.profiler will record no GPU activity") != std::string::npos);
  CHECK(message.find("without cuptitrace") != std::string::npos);
}

TEST_CASE("cupti peers: none in a plain CUDA program; several are named together", "[peers]") {
  CHECK(cuptiPeersIn({"/usr/lib/libcudart.so.13", "/usr/lib/libcupti.so.13", "libtorch_cpu.so"}).empty());
  CHECK(cuptiPeersMessage({}).empty());
  const auto both = cuptiPeersIn({"/x/libtorch_cuda.so", "/y/jaxlib/xla_extension.so"});
  REQUIRE(both.size() == 2);
  CHECK(cuptiPeersMessage(both).find("torch.profiler and jax.profiler") != std::string::npos);
}
