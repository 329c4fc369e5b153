// NVTX's naming calls as CUPTI reports them: the CUDA handle a program names
// is turned into the id that records carry (through a stand-in for CUPTI's
// id calls: there is no driver here), and the name lands under that id.
#include <catch2/catch.hpp>

#include <generated_nvtx_meta.h>

#include <map>

#include "collectors/nvtx_callbacks.h"

using namespace cuptitrace;

namespace {

// Handles the fake lookup knows, and the ids it gives them; any other handle is unknown.
CUcontext const kContextA = reinterpret_cast<CUcontext>(0x1000);
CUcontext const kContextB = reinterpret_cast<CUcontext>(0x2000);
CUcontext const kUnknownContext = reinterpret_cast<CUcontext>(0x3000);
CUstream const kStream = reinterpret_cast<CUstream>(0x4000);

bool fakeStreamId(CUstream stream, uint32_t* id) {
  if (stream != kStream) return false;
  *id = 21;
  return true;
}
bool fakeContextId(CUcontext context, uint32_t* id) {
  if (context == kContextA) *id = 7;
  else if (context == kContextB) *id = 9;
  else return false;
  return true;
}

template <typename Params>
void call(NvtxCallbacks& callbacks, CUpti_CallbackId cbid, const Params& params) {
  CUpti_NvtxData data{};
  data.functionName = "nvtxName";
  data.functionParams = &params;
  callbacks.handle(cbid, &data);
}

struct Fixture {
  Trace trace;
  NvtxRecorder recorder;
  NvtxCallbacks callbacks{recorder, trace.strings, CudaIdLookup{fakeStreamId, fakeContextId}};
  const std::map<uint32_t, std::string>& published() {
    recorder.publish(trace);
    return trace.contextNames;
  }
};

}  // namespace

TEST_CASE("nvtx callbacks: nvtxNameCuContextA names the context's CUPTI id") {
  Fixture f;
  const nvtxNameCuContextA_params a{kContextA, "trainer"};
  call(f.callbacks, CUPTI_CBID_NVTX_nvtxNameCuContextA, a);
  const nvtxNameCuContextA_params b{kContextB, "loader"};
  call(f.callbacks, CUPTI_CBID_NVTX_nvtxNameCuContextA, b);
  const std::map<uint32_t, std::string> expected{{7, "trainer"}, {9, "loader"}};
  CHECK(f.published() == expected);
  CHECK(f.trace.streamNames.empty());
  CHECK(f.trace.deviceNames.empty());
}

TEST_CASE("nvtx callbacks: a context named twice keeps the last name") {
  Fixture f;
  const nvtxNameCuContextA_params first{kContextA, "first"};
  call(f.callbacks, CUPTI_CBID_NVTX_nvtxNameCuContextA, first);
  const nvtxNameCuContextA_params second{kContextA, "second"};
  call(f.callbacks, CUPTI_CBID_NVTX_nvtxNameCuContextA, second);
  const std::map<uint32_t, std::string> expected{{7, "second"}};
  CHECK(f.published() == expected);
}

TEST_CASE("nvtx callbacks: nvtxNameCuContextW is converted to UTF-8") {
  Fixture f;
  const nvtxNameCuContextW_params w{kContextB, L"r\u00e9seau \u2713"};
  call(f.callbacks, CUPTI_CBID_NVTX_nvtxNameCuContextW, w);
  const std::map<uint32_t, std::string> expected{{9, "r\xC3\xA9seau \xE2\x9C\x93"}};
  CHECK(f.published() == expected);
}

TEST_CASE("nvtx callbacks: an unknown context or a null name names nothing") {
  Fixture f;
  const nvtxNameCuContextA_params unknown{kUnknownContext, "lost"};
  call(f.callbacks, CUPTI_CBID_NVTX_nvtxNameCuContextA, unknown);
  const nvtxNameCuContextA_params noName{kContextA, nullptr};
  call(f.callbacks, CUPTI_CBID_NVTX_nvtxNameCuContextA, noName);
  const nvtxNameCuContextW_params noWideName{kContextA, nullptr};
  call(f.callbacks, CUPTI_CBID_NVTX_nvtxNameCuContextW, noWideName);
  CHECK(f.published().empty());
}

TEST_CASE("nvtx callbacks: streams are named by their CUPTI id through the same lookup") {
  Fixture f;
  const nvtxNameCudaStreamA_params s{reinterpret_cast<cudaStream_t>(kStream), "copies"};
  call(f.callbacks, CUPTI_CBID_NVTX_nvtxNameCudaStreamA, s);
  const nvtxNameCuStreamA_params unknown{reinterpret_cast<CUstream>(0x5000), "lost"};
  call(f.callbacks, CUPTI_CBID_NVTX_nvtxNameCuStreamA, unknown);
  f.recorder.publish(f.trace);
  const std::map<uint32_t, std::string> expected{{21, "copies"}};
  CHECK(f.trace.streamNames == expected);
  CHECK(f.trace.contextNames.empty());
}
