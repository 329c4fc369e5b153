// The lean API set against CUPTI's own lists of callback ids
// (cupti_runtime_cbid.h, cupti_driver_cbid.h, read as text): every call that
// launches, copies or sets is in it, in every version, and the queries that
// make up most of a framework's calls are not.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "collectors/api_selection.h"

using namespace cuptitrace;

namespace {

// name -> callback id, from the header's enumerators PREFIX<name> = <id>.
std::map<std::string, uint32_t> readCallbackIds(const char* file, const std::string& prefix) {
  std::map<std::string, uint32_t> ids;
#ifdef CUPTITRACE_CBID_INCLUDE_DIR
  std::ifstream in(std::string(CUPTITRACE_CBID_INCLUDE_DIR) + "/" + file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const std::regex entry(prefix + "([A-Za-z0-9_]+)\\s*=\\s*([0-9]+)");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), entry); it != std::sregex_iterator();
       ++it)
    ids[(*it)[1]] = static_cast<uint32_t>(std::stoul((*it)[2]));
#else
  (void)file;
  (void)prefix;
#endif
  return ids;
}

std::set<uint32_t> asSet(CallbackIds ids) { return {ids.begin(), ids.end()}; }

// Every header name matching `wanted` is in `selected`; none matching `query` is.
void checkSelection(const std::map<std::string, uint32_t>& header,
                    const std::set<uint32_t>& selected, const std::regex& wanted,
                    const std::regex& query, size_t minWanted) {
  size_t wantedCount = 0, queries = 0;
  for (const auto& [name, id] : header) {
    if (std::regex_search(name, wanted)) {
      INFO(name << " (" << id << ") starts GPU work but is not in the lean set");
      CHECK(selected.count(id) == 1);
      ++wantedCount;
    }
    if (std::regex_search(name, query)) {
      INFO(name << " (" << id << ") is a query but is in the lean set");
      CHECK(selected.count(id) == 0);
      ++queries;
    }
  }
  CHECK(wantedCount >= minWanted);  // the patterns still match the header
  CHECK(queries > 0);
  // Every id of the set is one the header names.
  std::set<uint32_t> known;
  for (const auto& [name, id] : header) known.insert(id);
  for (uint32_t id : selected) CHECK(known.count(id) == 1);
  // Lean: a small part of the API.
  CHECK(selected.size() * 3 < header.size());
}

}  // namespace

TEST_CASE("lean runtime set: launches, copies, sets, waits and allocations, no queries",
          "[api_selection]") {
  const auto header = readCallbackIds("cupti_runtime_cbid.h", "CUPTI_RUNTIME_TRACE_CBID_");
  if (header.empty()) {
    WARN("cupti_runtime_cbid.h not found at build time; checked the table alone");
  }
  const auto selected = asSet(leanRuntimeCallbacks());
  CHECK(selected.size() == leanRuntimeCallbacks().size);  // no id twice
  CHECK(selected.count(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000) == 1);
  CHECK(selected.count(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020) == 0);
  if (header.empty()) return;
  const std::regex wanted(
      "^_*cuda(Launch|Memcpy|Memset|GraphLaunch|DeviceSynchronize|StreamSynchronize|"
      "EventSynchronize|"
      "StreamWaitEvent|EventRecord|Malloc|Free)");
  const std::regex query(
      "^cuda(GetDevice|SetDevice|StreamIsCapturing|GetLastError|PeekAtLastError|EventQuery|"
      "StreamQuery|"
      "DeviceGetAttribute|FuncGetAttributes|PointerGetAttributes|StreamGetCaptureInfo|"
      "GetDeviceCount|"
      "GetDeviceProperties|StreamGetPriority|GetFuncBySymbol|GraphAdd)");
  checkSelection(header, selected, wanted, query, 100);
}

TEST_CASE("lean driver set: launches, copies, sets, waits and allocations, no queries",
          "[api_selection]") {
  const auto header = readCallbackIds("cupti_driver_cbid.h", "CUPTI_DRIVER_TRACE_CBID_");
  const auto selected = asSet(leanDriverCallbacks());
  CHECK(selected.size() == leanDriverCallbacks().size);
  for (const auto id :
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async})
    CHECK(selected.count(id) == 1);
  CHECK(selected.count(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent) == 0);
  if (header.empty()) return;
  const std::regex wanted(
      "^cu(Launch|Memcpy|Memset|GraphLaunch|CtxSynchronize|StreamSynchronize|EventSynchronize|"
      "StreamWaitEvent|EventRecord|MemAlloc|MemFree)");
  const std::regex query(
      "^cu(CtxGetCurrent|CtxSetCurrent|CtxGetDevice|DeviceGet|StreamQuery|EventQuery|"
      "PointerGetAttribute|"
      "GetProcAddress|ModuleGetFunction|FuncGetAttribute|StreamIsCapturing|StreamGetCaptureInfo|"
      "GetErrorString|GraphAdd|KernelGetFunction|LibraryGetKernel)");
  checkSelection(header, selected, wanted, query, 140);
}
