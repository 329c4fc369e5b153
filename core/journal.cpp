#include "core/journal.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/journal_blocks.h"
#include "core/journal_format.h"
#include "core/log.h"

namespace cuptitrace {
namespace {

using journal::Block;

// What of the trace the journal holds so far, besides records.
struct JournalState {
  Trace* trace = nullptr;
  size_t devices = 0, contexts = 0, names = 0;
};

// Every string interned so far, the block still filling included: a chunk
// about to be written may name any of them.
bool writeStrings(SpillFile& file, JournalState& s) { return s.trace->strings.writeTo(file, true); }

// Devices, contexts and names change rarely (they come from the same thread
// that spills): written again only when there are more of them.
bool writeInfo(SpillFile& file, JournalState& s) {
  const Trace& t = *s.trace;
  const size_t names = t.streamNames.size() + t.threadNames.size() + t.deviceNames.size() + t.contextNames.size();
  if (t.devices.size() == s.devices && t.contexts.size() == s.contexts && names == s.names) return true;
  const std::string payload = journal::encodeInfo(t);
  if (!file.appendBlock(Block::Info, payload.data(), payload.size())) return false;
  s.devices = t.devices.size();
  s.contexts = t.contexts.size();
  s.names = names;
  return true;
}

}  // namespace

std::string spillPathFor(std::string_view outputTemplate, const OutputNameInputs& inputs) {
  if (!usesSequence(outputTemplate)) return expandOutputName(outputTemplate, inputs, 1) + ".spill";
  const std::string expanded = expandOutputName(outputTemplate, inputs, 1);
  const size_t slash = expanded.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : expanded.substr(0, slash + 1);
  std::string host;
  for (const char c : inputs.host) host += (c == '/' || static_cast<unsigned char>(c) < 0x20) ? '_' : c;
  return dir + "cuptitrace-" + host + "-" + std::to_string(inputs.pid) + ".spill";
}

void enableSpillJournal(Trace& trace, const std::string& path, SpillMode mode) {
  if (mode == SpillMode::Off) return;
  auto file = std::make_unique<SpillFile>(path);
  // Taken now, on this thread: the journal is written by the drain thread later.
  const std::string metadata = journal::encodeMetadata(trace.meta);
  file->onCreate = [metadata](SpillFile& f) {
    return f.appendBlock(Block::Metadata, metadata.data(), metadata.size());
  };
  auto state = std::make_shared<JournalState>();
  state->trace = &trace;
  file->beforeChunk = [state](SpillFile& f) { return writeInfo(f, *state) && writeStrings(f, *state); };
  if (mode == SpillMode::Always) file->start();
  trace.store.setSpill(std::move(file), mode);
}

void makeRoomForExport(Trace& trace, uint64_t bytes) {
  if (trace.store.spillMode() == SpillMode::Off || bytes == 0) return;
  // As much as can be had: all but the chunks still filling when the
  // exporters' own memory alone passes the budget.
  trace.store.releaseMemory(std::min(bytes, trace.store.maxBytes()));
}

bool sealSpillJournal(Trace& trace) {
  if (trace.store.spillMode() == SpillMode::Off) return false;
  return trace.store.persistAll();
}

void publishSpillCounters(Trace& trace) {
  const SpillFile* file = trace.store.spillFile();
  if (file == nullptr || trace.store.spillMode() == SpillMode::Off) return;
  if (file->created()) {
    trace.counters["spill.chunks"] = trace.store.spilledChunks();
    trace.counters["spill.records"] = trace.store.spilledRecords();
    trace.counters["spill.bytes"] = file->size();
  }
  if (file->failed()) {
    trace.counters["spill.failed"] = 1;
    logger().warn("records past CUPTITRACE_MAX_MEMORY could not be spilled ({}); they were dropped and counted",
                  file->error());
  }
}

std::string removeSpillJournal(Trace& trace) {
  SpillFile* file = trace.store.spillFile();
  if (file == nullptr || !file->created() || !file->writable()) return {};
  if (!file->remove()) logger().warn("could not delete the spill journal {}", file->path());
  return file->path();
}

}  // namespace cuptitrace
