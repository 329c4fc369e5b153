#include "core/trace_store.h"

#include <exception>
#include <string>

namespace cuptitrace {

const char* spillModeName(SpillMode mode) {
  switch (mode) {
    case SpillMode::Off: return "off";
    case SpillMode::Auto: return "auto";
    case SpillMode::Always: return "always";
  }
  return "auto";
}

TraceStore::~TraceStore() {
  // The sequences point into the spill file's mappings: they go first.
  forEachRecordType([&](auto tag) { sequence<typename decltype(tag)::type>().clear(); });
}

void TraceStore::setSpill(std::unique_ptr<SpillFile> file, SpillMode mode) {
  spill_ = std::move(file);
  // Published last: the writer looks at the file only once it sees the mode.
  mode_.store(spill_ ? mode : SpillMode::Off, std::memory_order_release);
}

uint64_t TraceStore::count(RecordKind kind) const {
  uint64_t n = 0;
  visitRecordKind(kind, [&](auto tag) { n = records<typename decltype(tag)::type>().size(); });
  return n;
}

uint64_t TraceStore::totalDropped() const {
  uint64_t n = 0;
  for (auto d : dropped_) n += d;
  return n;
}

uint64_t TraceStore::bytesReserved() const {
  uint64_t n = 0;
  forEachKind(*this, [&](const auto& seq) { n += seq.bytesReserved(); });
  return n;
}

bool TraceStore::spillUsable() const {
  return spillMode() != SpillMode::Off && !spill_->failed();
}

void TraceStore::chunkFilled(RecordKind kind, size_t chunk) {
  full_.push_back({kind, static_cast<uint32_t>(chunk)});
  if (spillMode() != SpillMode::Always) return;
  // Everything full goes to disk now, so a killed process leaves it behind.
  while (!full_.empty() && spillUsable()) {
    const FullChunk c = full_.front();
    full_.pop_front();
    spillChunk(c);
  }
}

uint64_t TraceStore::releaseStrings(uint64_t bytes) {
  if (strings_ == nullptr || !spillUsable()) return 0;
  // On the writer's thread, which nothing may escape: memory running out included.
  try {
    if (!strings_->writeTo(*spill_, false)) return 0;
  } catch (const std::exception& e) {
    spill_->stop(std::string("spilling strings failed: ") + e.what());
    return 0;
  }
  return strings_->releaseWritten(bytes);
}

bool TraceStore::makeRoom(uint64_t bytes) {
  while (memoryInUse() + bytes > maxBytes_) {
    if (releaseStrings(memoryInUse() + bytes - maxBytes_) > 0) continue;
    if (full_.empty() || !spillUsable()) return false;
    const FullChunk c = full_.front();
    full_.pop_front();
    if (!spillChunk(c)) return false;
  }
  return true;
}

void TraceStore::requeue(RecordKind kind) {
  std::deque<FullChunk> others;
  for (const FullChunk& c : full_)
    if (c.kind != kind) others.push_back(c);
  std::deque<FullChunk> queue;
  visitRecordKind(kind, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto& seq = sequence<T>();
    for (size_t c = 0; c < seq.chunkCount(); ++c)
      if (!seq.chunkSpilled(c) && seq.chunkSize(c) == ChunkedVector<T>::kChunkRecords)
        queue.push_back({kind, static_cast<uint32_t>(c)});
  });
  queue.insert(queue.end(), others.begin(), others.end());
  full_.swap(queue);
}

bool TraceStore::persistAll() {
  if (spill_ == nullptr || !spillUsable()) return false;
  while (!full_.empty()) {
    const FullChunk c = full_.front();
    full_.pop_front();
    if (!spillChunk(c)) return false;
  }
  bool ok = true;
  forEachRecordType([&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr auto kind = RecordKindOf<T>::value;
    auto& seq = sequence<T>();
    for (size_t c = 0; c < seq.chunkCount() && ok; ++c) {
      if (seq.chunkSpilled(c) || seq.chunkSize(c) == 0) continue;
      if (seq.chunkSize(c) == ChunkedVector<T>::kChunkRecords) {
        ok = spillChunk({kind, static_cast<uint32_t>(c)});
        continue;
      }
      uint32_t id = 0;
      try {
        ok = spill_->appendChunk(kind, sizeof(T), static_cast<uint32_t>(c), seq.chunkData(c),
                                 static_cast<uint32_t>(seq.chunkSize(c)), id) != nullptr;
      } catch (const std::exception& e) {
        spill_->stop(std::string("spilling failed: ") + e.what());
        ok = false;
      }
    }
  });
  return ok && spill_->sync();
}

bool TraceStore::journalTails() {
  if (spillMode() != SpillMode::Always || !spillUsable()) return false;
  bool ok = true;
  for (int k = 0; k < kRecordKindCount && ok; ++k) ok = journalTail(static_cast<RecordKind>(k));
  return ok;
}

bool TraceStore::journalTail(RecordKind kind) {
  TailMark& mark = tails_[static_cast<size_t>(kind)];
  bool ok = true;
  // On the writer's thread: nothing may escape it, memory running out included.
  try {
    visitRecordKind(kind, [&](auto tag) {
      using T = typename decltype(tag)::type;
      constexpr size_t kRecords = ChunkedVector<T>::kChunkRecords;
      const auto& seq = sequence<T>();
      const size_t n = seq.size();
      const auto slot = static_cast<uint32_t>(n / kRecords);
      const auto filled = static_cast<uint32_t>(n % kRecords);
      // Fewer records than the journal has: they were cleared, not appended.
      if (n < uint64_t{mark.slot} * kRecords + mark.written) mark.rewrite = true;
      // The slot written last is no longer the one filling (its records
      // moved to earlier chunks): emptied in the journal too.
      if (mark.rewrite && mark.written > 0 && (filled == 0 || slot != mark.slot))
        ok = spill_->appendTail(kind, sizeof(T), mark.slot, 0, nullptr, 0);
      // Only what came since the last TAIL of this slot; all of it for a new slot.
      const uint32_t first = slot == mark.slot && !mark.rewrite ? mark.written : 0;
      if (ok && filled > first)
        ok = spill_->appendTail(kind, sizeof(T), slot, first, seq.chunkData(slot) + first, filled - first);
      if (ok) mark = {slot, filled, false};
    });
  } catch (const std::exception& e) {
    spill_->stop(std::string("writing the journal's tails failed: ") + e.what());
    ok = false;
  }
  return ok;
}

bool TraceStore::spillChunk(FullChunk c) {
  bool ok = true;
  visitRecordKind(c.kind, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto& seq = sequence<T>();
    // Entries go stale when records are filtered or cleared after they were queued.
    if (c.chunk >= seq.chunkCount() || seq.chunkSpilled(c.chunk) ||
        seq.chunkSize(c.chunk) != ChunkedVector<T>::kChunkRecords)
      return;
    uint32_t id = 0;
    const void* mapped = nullptr;
    // On the drain thread: nothing may escape it, memory running out included.
    try {
      mapped = spill_->appendChunk(c.kind, sizeof(T), c.chunk, seq.chunkData(c.chunk),
                                   static_cast<uint32_t>(ChunkedVector<T>::kChunkRecords), id);
    } catch (const std::exception& e) {
      spill_->stop(std::string("spilling failed: ") + e.what());
    }
    if (mapped == nullptr) {
      ok = false;
      return;
    }
    seq.spillChunk(c.chunk, static_cast<const T*>(mapped), id, spill_.get());
    ++spilledChunks_;
    spilledRecords_ += ChunkedVector<T>::kChunkRecords;
  });
  return ok;
}

}  // namespace cuptitrace
