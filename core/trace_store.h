// The trace store: every decoded record, one chunked sequence per kind, under
// one memory budget.
//
// Past the budget the store spills: the oldest full chunks, of any kind, are
// written to a spill file (spill_file.h) and their memory freed, and readers
// reach them through a mapping of that file as if nothing had moved. With no
// spill file, or when writing to it fails (disk full), a record past the
// budget is not stored but counted as dropped, so the loss shows in the
// trace's metadata and summary.
//
// Single writer: the drain thread (or a reader of a saved trace) appends;
// exporters read after collection has stopped.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <tuple>
#include <vector>

#include "core/chunked_vector.h"
#include "core/records.h"
#include "core/spill_file.h"
#include "core/spill_mode.h"
#include "core/string_table.h"

namespace cuptitrace {

class TraceStore {
 public:
  explicit TraceStore(uint64_t maxBytes = UINT64_MAX) : maxBytes_(maxBytes) {}
  ~TraceStore();
  TraceStore(const TraceStore&) = delete;
  TraceStore& operator=(const TraceStore&) = delete;

  void setMaxBytes(uint64_t maxBytes) {
    maxBytes_ = maxBytes;
    if (strings_ != nullptr) strings_->setMaxBytes(maxBytes);
  }
  // The trace's strings share the budget: past it, their full blocks go to
  // the spill file first (they cost a reader least), then records.
  void setStrings(StringTable* strings) { strings_ = strings; }
  // Memory held elsewhere that the budget covers too, though it cannot spill
  // (a recorder's records waiting for the writer): it makes records spill
  // sooner. Called on the writer's thread; set before it starts.
  void addMemoryUser(std::function<uint64_t()> bytes) { memoryUsers_.push_back(std::move(bytes)); }
  uint64_t maxBytes() const { return maxBytes_; }

  // Gives the store a spill file: chunks go there past the budget (Auto) or
  // as soon as each is full (Always); Off keeps it only for reading (a
  // recovered journal). Set once; the writer may already be appending.
  void setSpill(std::unique_ptr<SpillFile> file, SpillMode mode);
  SpillFile* spillFile() const { return spill_.get(); }
  SpillMode spillMode() const { return mode_.load(std::memory_order_acquire); }

  // Appends a record; false (and the record counted as dropped) past the
  // budget when nothing can be spilled.
  template <typename T>
  bool add(const T& record) {
    auto& seq = sequence<T>();
    constexpr auto kind = RecordKindOf<T>::value;
    if (seq.needsChunk() && !roomForChunk(ChunkedVector<T>::kChunkBytes)) {
      ++dropped_[static_cast<size_t>(kind)];
      return false;
    }
    if (!seq.tryPushBack(record)) {
      ++dropped_[static_cast<size_t>(kind)];
      return false;
    }
    if (seq.needsChunk()) chunkFilled(kind, seq.chunkCount() - 1);
    return true;
  }

  // add() of n records at once, a chunk at a time (readers of saved
  // traces): the same records kept and dropped; how many were kept.
  template <typename T>
  size_t addMany(const T* records, size_t n) {
    auto& seq = sequence<T>();
    constexpr auto kind = RecordKindOf<T>::value;
    size_t added = 0;
    while (added < n) {
      if (seq.needsChunk() && !roomForChunk(ChunkedVector<T>::kChunkBytes)) break;
      const size_t k = seq.tryAppend(records + added, n - added);
      if (k == 0) break;
      added += k;
      if (seq.needsChunk()) chunkFilled(kind, seq.chunkCount() - 1);
    }
    dropped_[static_cast<size_t>(kind)] += n - added;
    return added;
  }

  template <typename T>
  const ChunkedVector<T>& records() const { return std::get<ChunkedVector<T>>(sequences_); }
  // For clearing or appending outside the budget (tests, readers of saved traces).
  template <typename T>
  ChunkedVector<T>& mutableRecords() { return sequence<T>(); }

  // Keeps the records of kind T for which keep(const T&) is true, in order,
  // compacting in place: kept records move towards the front, spilled chunks
  // are rewritten in their place in the spill file, and chunks left empty are
  // freed (or, spilled, marked dead in the file).
  template <typename T, typename Pred>
  void retain(Pred keep);

  // Appends a full chunk of records that lies in the spill file (recovery):
  // no copy. A chunk that is not full, or that follows one that is not, is
  // copied in instead.
  template <typename T>
  void adoptSpilled(const T* records, uint32_t count, uint32_t spillId);

  // Spills the oldest full chunks until `bytes` more fit under the budget:
  // readers about to need memory of their own (the exporters' indexes). False
  // when that much cannot be freed (no spill file, or too few full chunks).
  bool releaseMemory(uint64_t bytes) { return bytes <= maxBytes_ && makeRoom(bytes); }

  // Puts every record in the spill file, the chunks still filling too (as
  // copies: they stay in memory, and the journal's reader takes the last
  // chunk of a slot), so that the file alone holds the whole trace. For the
  // end of a run that may be cut short (a signal): nothing is appended after.
  // False when there is no usable spill file or a write failed.
  bool persistAll();

  // With SpillMode::Always: writes to the journal, as TAIL blocks, what each
  // kind's chunk still filling gained since the last call. Full chunks are
  // there already, so the journal then holds every record stored so far, and
  // a process killed afterwards (SIGKILL, the OOM killer, _exit) loses only
  // what came after. The chunks stay in memory, filling, and count against
  // the budget as before. No fsync: what pwrite put in the page cache
  // survives the process, not a crash of the machine. The writer calls it
  // now and then (CUPTITRACE_JOURNAL_PERIOD). False when there is no usable
  // journal or a write failed.
  bool journalTails();

  // Number of records stored, and dropped for the budget, per kind.
  uint64_t count(RecordKind kind) const;
  uint64_t dropped(RecordKind kind) const { return dropped_[static_cast<size_t>(kind)]; }
  void addDropped(RecordKind kind, uint64_t n) { dropped_[static_cast<size_t>(kind)] += n; }
  uint64_t totalDropped() const;
  // Memory held by records in memory.
  uint64_t bytesReserved() const;
  // That and the strings' memory: what the budget bounds.
  uint64_t memoryInUse() const {
    uint64_t bytes = bytesReserved() + (strings_ != nullptr ? strings_->bytesInMemory() : 0);
    for (const auto& user : memoryUsers_) bytes += user();
    return bytes;
  }
  // The most memoryInUse() seen when a chunk was added: how close to the
  // budget the run came.
  uint64_t peakMemoryInUse() const { return peak_; }
  // What went to the spill file.
  uint64_t spilledChunks() const { return spilledChunks_; }
  uint64_t spilledRecords() const { return spilledRecords_; }

 private:
  template <typename... Ts>
  static std::tuple<ChunkedVector<Ts>...> sequencesOf(RecordTypeList<Ts...>);
  template <typename T>
  ChunkedVector<T>& sequence() { return std::get<ChunkedVector<T>>(sequences_); }

  struct FullChunk {
    RecordKind kind;
    uint32_t chunk;
  };
  // A chunk just filled: queued to spill, or spilled at once (Always).
  void chunkFilled(RecordKind kind, size_t chunk);
  // Spills the oldest full chunks until `bytes` more fit the budget.
  bool makeRoom(uint64_t bytes);
  // Before a new chunk: room made for it if needed; notes the peak.
  bool roomForChunk(uint64_t bytes) {
    const uint64_t used = memoryInUse();
    if (used > peak_) peak_ = used;
    return used + bytes <= maxBytes_ || makeRoom(bytes);
  }
  // Spills one chunk if it is still in memory and full; false when the write failed.
  bool spillChunk(FullChunk c);
  // After filtering a kind: its full chunks in memory are queued again, first.
  void requeue(RecordKind kind);
  bool spillUsable() const;
  // journalTails() for one kind.
  bool journalTail(RecordKind kind);
  // Where the journal's TAIL blocks of a kind stand: the slot written last
  // and how many of its records the journal has. `rewrite` when records
  // moved under them (filtering): the next TAIL starts the slot again.
  struct TailMark {
    uint32_t slot = 0;
    uint32_t written = 0;
    bool rewrite = false;
  };
  // Moves full string blocks to the spill file; the bytes of memory freed.
  uint64_t releaseStrings(uint64_t bytes);

  decltype(sequencesOf(AllRecordTypes{})) sequences_;
  std::array<uint64_t, kRecordKindCount> dropped_{};
  uint64_t maxBytes_;
  uint64_t peak_ = 0;
  StringTable* strings_ = nullptr;
  std::vector<std::function<uint64_t()>> memoryUsers_;
  std::unique_ptr<SpillFile> spill_;
  std::atomic<SpillMode> mode_{SpillMode::Off};
  std::deque<FullChunk> full_;  // full chunks in memory, oldest first (entries may be stale)
  std::array<TailMark, kRecordKindCount> tails_{};
  uint64_t spilledChunks_ = 0;
  uint64_t spilledRecords_ = 0;
};

// Calls f(const ChunkedVector<T>&) for every kind's sequence, in RecordKind order.
template <typename F>
void forEachKind(const TraceStore& store, F&& f) {
  forEachRecordType([&](auto tag) { f(store.records<typename decltype(tag)::type>()); });
}

// ---- templates ------------------------------------------------------------------

template <typename T, typename Pred>
void TraceStore::retain(Pred keep) {
  constexpr size_t kRecords = ChunkedVector<T>::kChunkRecords;
  constexpr auto kind = RecordKindOf<T>::value;
  auto& seq = sequence<T>();
  // Staging for a spilled destination chunk: written over it once full, when
  // every record it held has been read.
  std::vector<T> staging;
  // Puts staged records into spilled chunk dc: in the file, or back in memory
  // when the file refuses. False when neither works.
  auto placeStaged = [&](size_t dc, size_t n) {
    return spill_->rewriteChunk(seq.chunkSpillId(dc), staging.data(), static_cast<uint32_t>(n)) ||
           seq.loadChunk(dc, staging.data(), n);
  };
  const size_t total = seq.size();
  size_t read = 0, w = 0;
  bool lost = false;
  for (size_t c = 0; c < seq.chunkCount() && !lost; ++c) {
    const T* src = seq.chunkData(c);
    const size_t n = seq.chunkSize(c);
    for (size_t j = 0; j < n && !lost; ++j) {
      ++read;
      const T record = src[j];  // a copy: the destination may be this very slot
      if (!keep(static_cast<const T&>(record))) continue;
      const size_t dc = w / kRecords, dj = w % kRecords;
      if (seq.chunkSpilled(dc)) {
        if (staging.empty()) staging.resize(kRecords);
        staging[dj] = record;
      } else {
        seq.chunkMemory(dc)[dj] = record;
      }
      ++w;
      if (dj + 1 == kRecords && seq.chunkSpilled(dc) && !placeStaged(dc, kRecords)) lost = true;
    }
  }
  const size_t tail = w % kRecords;
  if (!lost && tail != 0 && seq.chunkSpilled(w / kRecords)) {
    // The last chunk has room again: it must be in memory to take appends.
    const uint32_t id = seq.chunkSpillId(w / kRecords);
    if (seq.loadChunk(w / kRecords, staging.data(), tail)) spill_->discardChunk(id);
    else lost = true;
  }
  if (lost) {
    // No disk and no memory for the chunk being placed: it and every record
    // not yet read are lost, and counted.
    const size_t cut = w - (w % kRecords == 0 ? kRecords : w % kRecords);
    addDropped(kind, (w - cut) + (total - read));
    w = cut;
  }
  // Spilled chunks past the end leave the trace: dead in the file too.
  for (size_t c = (w + kRecords - 1) / kRecords; c < seq.chunkCount(); ++c)
    if (seq.chunkSpilled(c)) spill_->discardChunk(seq.chunkSpillId(c));
  seq.truncate(w);
  requeue(kind);
  // What the journal has of the chunk still filling moved: written again now,
  // so that a process killed from here on does not bring the old records back.
  tails_[static_cast<size_t>(kind)].rewrite = true;
  if (spillMode() == SpillMode::Always && spillUsable()) journalTail(kind);
}

template <typename T>
void TraceStore::adoptSpilled(const T* records, uint32_t count, uint32_t spillId) {
  auto& seq = sequence<T>();
  if (count == ChunkedVector<T>::kChunkRecords && seq.appendSpilled(records, spillId, spill_.get())) return;
  for (uint32_t i = 0; i < count; ++i) add(records[i]);
}

}  // namespace cuptitrace
