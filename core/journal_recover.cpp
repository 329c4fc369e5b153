// Reading a spill journal back into a trace (`cuptitrace recover`).
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/journal.h"
#include "core/journal_blocks.h"
#include "core/journal_format.h"
#include "core/journal_slots.h"

namespace cuptitrace {
namespace {

using journal::Block;
using journal::BlockHeader;
using journal::ChunkHeader;
using journal::SlotVersions;
using journal::TailHeader;

const char* blockName(uint32_t type) {
  switch (static_cast<Block>(type)) {
    case Block::Metadata: return "METADATA";
    case Block::Strings: return "STRINGS";
    case Block::Chunk: return "CHUNK";
    case Block::Info: return "INFO";
    case Block::Dead: return "DEAD";
    case Block::Pad: return "PAD";
    case Block::Tail: return "TAIL";
  }
  return "unknown";
}

class JournalReader {
 public:
  JournalReader(SpillFile& file, Trace& trace, RecoveryReport& report)
      : file_(file), trace_(trace), report_(report) {
    for (int k = 0; k < kRecordKindCount; ++k)
      visitRecordKind(static_cast<RecordKind>(k),
                      [&](auto tag) { found.emplace_back(sizeof(typename decltype(tag)::type)); });
  }

  void read() {
    const uint64_t size = file_.size();
    uint64_t off = journal::kFileHeaderBytes;
    report_.readBytes = off;
    while (off < size) {
      if (size - off < journal::kBlockHeaderBytes) {
        stop(off, "a block header cut short (the process died while writing it)");
        break;
      }
      BlockHeader h;
      std::memcpy(&h, file_.mapped(off, sizeof h), sizeof h);
      if (!journal::headerValid(h)) {
        stop(off, "a block header that does not check out (torn or overwritten)");
        break;
      }
      const uint64_t payloadOff = off + journal::kBlockHeaderBytes;
      if (h.length > size - payloadOff) {
        stop(off, std::string("a ") + blockName(h.type) + " block cut short (the process died while writing it)");
        break;
      }
      const uint64_t next = std::min(size, payloadOff + journal::alignUp(h.length));
      if (!readBlock(h, off, payloadOff)) break;
      ++report_.blocks;
      report_.readBytes = next;
      off = next;
    }
    report_.ignoredBytes += size - report_.readBytes;
  }

  // Per kind: each slot's latest version, in file order.
  std::vector<SlotVersions> found;
  uint64_t lastEnd = 0;

 private:
  void stop(uint64_t off, const std::string& why) {
    report_.stoppedAt = why + " at byte " + std::to_string(off);
  }

  bool checksumOk(const BlockHeader& h, const char* payload) const {
    return journal::crc32c(payload, h.length) == h.payloadCrc;
  }

  bool readBlock(const BlockHeader& h, uint64_t off, uint64_t payloadOff) {
    const auto type = static_cast<Block>(h.type);
    if (type == Block::Pad) return true;
    if (type == Block::Dead) {
      ++report_.deadChunks;
      readDead(h, payloadOff);
      return true;
    }
    if (type == Block::Chunk) {
      readChunk(h, off, payloadOff);
      return true;
    }
    const char* payload = file_.mapped(payloadOff, h.length);
    if (payload == nullptr || !checksumOk(h, payload)) {
      stop(off, std::string("a damaged ") + blockName(h.type) + " block");
      return false;
    }
    if (type == Block::Tail) {
      readTail(h, payload);
      return true;
    }
    const std::string_view data(payload, h.length);
    bool ok = true;
    switch (type) {
      case Block::Metadata:
        ok = journal::decodeMetadata(data, trace_.meta);
        report_.metadata = report_.metadata || ok;
        break;
      case Block::Strings: ok = readStrings(data, off); break;
      case Block::Info: ok = journal::decodeInfo(data, trace_); break;
      default: break;  // a block of a newer writer: skipped
    }
    // Read once; their pages need not stay.
    file_.release(payloadOff, h.length);
    if (!ok && report_.stoppedAt.empty()) stop(off, std::string("a malformed ") + blockName(h.type) + " block");
    return ok;
  }

  bool readStrings(std::string_view data, uint64_t off) {
    journal::Reader r(data);
    uint32_t first = 0, count = 0;
    if (!r.u32(first) || !r.u32(count)) return false;
    if (first != trace_.strings.size()) {
      stop(off, "strings out of sequence (id " + std::to_string(first) + " where " +
                    std::to_string(trace_.strings.size()) + " was next)");
      return false;
    }
    for (uint32_t i = 0; i < count; ++i) {
      std::string s;
      if (!r.str(s)) return false;
      // Records name strings by id: each gets back the id it had, repeated
      // text included (the writer's index may have forgotten a string).
      trace_.strings.append(s);
      ++report_.strings;
    }
    return true;
  }

  void readChunk(const BlockHeader& h, uint64_t off, uint64_t payloadOff) {
    const uint64_t blockBytes = journal::kBlockHeaderBytes + journal::alignUp(h.length);
    ChunkHeader ch{};
    const char* payload = h.length >= sizeof ch ? file_.mapped(payloadOff, h.length) : nullptr;
    if (payload != nullptr) std::memcpy(&ch, payload, sizeof ch);
    const uint64_t capacityBytes = h.length - (payload != nullptr ? sizeof ch : 0);
    bool known = false;
    if (payload != nullptr && ch.kind < kRecordKindCount) {
      visitRecordKind(static_cast<RecordKind>(ch.kind), [&](auto tag) {
        using T = typename decltype(tag)::type;
        known = ch.recordSize == sizeof(T) && uint64_t{ch.count} * sizeof(T) <= capacityBytes;
      });
    }
    if (!known) {
      skipChunk(blockBytes);
      return;
    }
    const uint32_t id = file_.addChunk(off, payloadOff + sizeof ch, capacityBytes);
    file_.touch(id);  // pages read here count against the reading budget
    if (!checksumOk(h, payload)) {
      skipChunk(blockBytes);
      return;
    }
    visitRecordKind(static_cast<RecordKind>(ch.kind), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* records = static_cast<const T*>(file_.chunkData(id));
      for (uint32_t i = 0; i < ch.count; ++i) lastEnd = std::max(lastEnd, recordEnd(records[i]));
    });
    const auto* records = static_cast<const char*>(file_.chunkData(id));
    if (found[ch.kind].chunk(ch.slot, id, records, ch.count)) report_.ignoredBytes += blockBytes;
  }

  // The chunk's records left the trace: so do the slot's earlier versions
  // (TAIL blocks written while it filled). Its header says which slot, and
  // the payload is the chunk's, unchanged.
  void readDead(const BlockHeader& h, uint64_t payloadOff) {
    ChunkHeader ch{};
    const char* payload = h.length >= sizeof ch ? file_.mapped(payloadOff, h.length) : nullptr;
    if (payload == nullptr || !checksumOk(h, payload)) return;
    std::memcpy(&ch, payload, sizeof ch);
    if (ch.kind < kRecordKindCount) found[ch.kind].dead(ch.slot);
  }

  // Records of a chunk still filling. Read in place at the end (copied then).
  void readTail(const BlockHeader& h, const char* payload) {
    const uint64_t blockBytes = journal::kBlockHeaderBytes + journal::alignUp(h.length);
    TailHeader th{};
    bool known = h.length >= sizeof th;
    if (known) std::memcpy(&th, payload, sizeof th);
    known = known && th.kind < kRecordKindCount;
    if (known) {
      visitRecordKind(static_cast<RecordKind>(th.kind), [&](auto tag) {
        using T = typename decltype(tag)::type;
        known = th.recordSize == sizeof(T) && uint64_t{th.count} * sizeof(T) == h.length - sizeof th &&
                uint64_t{th.first} + th.count <= ChunkedVector<T>::kChunkRecords;
      });
    }
    if (!known) {
      skipChunk(blockBytes);
      return;
    }
    ++report_.tails;
    // A TAIL past what the slot holds follows one that was lost: not usable.
    if (!found[th.kind].tail(th.slot, th.first, payload + sizeof th, th.count)) report_.ignoredBytes += blockBytes;
  }

  void skipChunk(uint64_t blockBytes) {
    ++report_.skippedChunks;
    report_.ignoredBytes += blockBytes;
  }

  SpillFile& file_;
  Trace& trace_;
  RecoveryReport& report_;
};

}  // namespace

bool recoverJournal(const std::string& path, Trace& trace, RecoveryReport& report, std::string& error) {
  report = RecoveryReport{};
  std::unique_ptr<SpillFile> file = SpillFile::openForReading(path, error);
  if (!file) return false;
  report.fileBytes = file->size();
  const char* head = file->mapped(0, journal::kFileHeaderBytes);
  if (head == nullptr || std::memcmp(head, journal::kMagic, sizeof journal::kMagic) != 0) {
    error = path + " is not a cuptitrace spill journal (no CTJOURNL header)";
    return false;
  }
  uint32_t version = 0;
  std::memcpy(&version, head + 8, sizeof version);
  if (version != journal::kJournalVersion) {
    error = path + ": unsupported journal version " + std::to_string(version) + " (this build reads version " +
            std::to_string(journal::kJournalVersion) + ")";
    return false;
  }

  JournalReader reader(*file, trace, report);
  reader.read();

  SpillFile* raw = file.get();
  trace.store.setSpill(std::move(file), SpillMode::Off);
  forEachRecordType([&](auto tag) {
    using T = typename decltype(tag)::type;
    const SlotVersions& versions = reader.found[static_cast<size_t>(RecordKindOf<T>::value)];
    uint32_t expected = 0;
    std::vector<T> copied;
    for (const auto& [slot, chunk] : versions.slots()) {
      report.missingChunks += slot - expected;
      expected = slot + 1;
      ++report.chunks;
      if (chunk.chunkId != SlotVersions::kNoChunk) {
        trace.store.adoptSpilled(static_cast<const T*>(raw->chunkData(chunk.chunkId)), chunk.count, chunk.chunkId);
        continue;
      }
      // Assembled from TAIL blocks: copied, as a chunk that is not full is.
      copied.resize(chunk.count);
      versions.copy(chunk, copied.data());
      for (const T& r : copied) {
        trace.store.add(r);
        reader.lastEnd = std::max(reader.lastEnd, recordEnd(r));
      }
    }
  });

  TraceMetadata& meta = trace.meta;
  if (!report.metadata) meta.processName = "(unknown: the journal's metadata was not readable)";
  // The process never reached its end: the last record is as far as the trace goes.
  if (meta.endTimestampNs < reader.lastEnd) meta.endTimestampNs = reader.lastEnd;
  if (meta.baseTimestampNs == 0) meta.baseTimestampNs = meta.startTimestampNs;
  trace.counters["recovered"] = 1;
  trace.counters["recovered.bytes_ignored"] = report.ignoredBytes;
  if (report.skippedChunks != 0) trace.counters["recovered.chunks_skipped"] = report.skippedChunks;
  return true;
}

}  // namespace cuptitrace
