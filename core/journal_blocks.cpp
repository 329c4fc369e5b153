#include "core/journal_blocks.h"

#include "core/journal_format.h"
#include "core/trace_info_io.h"

namespace cuptitrace::journal {

std::string encodeMetadata(const TraceMetadata& meta) {
  std::string out;
  Writer w(out);
  binary_io::writeMetadataHead(w, meta);
  binary_io::writeRank(w, meta);  // added later: after the head, so older journals still read
  return out;
}

bool decodeMetadata(std::string_view data, TraceMetadata& meta) {
  Reader r(data);
  TraceMetadata m;
  if (!binary_io::readMetadataHead(r, m)) return false;
  if (r.remaining() > 0 && !binary_io::readRank(r, m)) return false;
  meta = std::move(m);
  return true;
}

std::string encodeInfo(const Trace& trace) {
  std::string out;
  Writer w(out);
  binary_io::writeDevices(w, trace.devices);
  binary_io::writeContexts(w, trace.contexts);
  // Context names came later: last, so that a journal without them still reads.
  for (const auto* names : {&trace.streamNames, &trace.threadNames, &trace.deviceNames, &trace.contextNames})
    binary_io::writeNames(w, *names);
  return out;
}

bool decodeInfo(std::string_view data, Trace& trace) {
  Reader r(data);
  std::vector<DeviceInfo> devices;
  std::vector<ContextInfo> contexts;
  std::map<uint32_t, std::string> names[4];
  bool ok = binary_io::readDevices(r, devices) && binary_io::readContexts(r, contexts);
  for (auto& map : names) {
    if (ok && &map == &names[3] && r.remaining() == 0) break;  // written before context names
    ok = ok && binary_io::readNames(r, map);
  }
  if (!ok) return false;
  trace.devices = std::move(devices);
  trace.contexts = std::move(contexts);
  trace.streamNames = std::move(names[0]);
  trace.threadNames = std::move(names[1]);
  trace.deviceNames = std::move(names[2]);
  trace.contextNames = std::move(names[3]);
  return true;
}

}  // namespace cuptitrace::journal
