// The trace store: every decoded record, one chunked sequence per kind, under
// one memory budget. Past the budget a record is not stored but counted as
// dropped, so the loss shows in the trace's metadata and summary.
//
// Single writer: the drain thread (or a reader of a saved trace) appends;
// exporters read after collection has stopped.
#pragma once

#include <array>
#include <cstdint>
#include <tuple>

#include "core/chunked_vector.h"
#include "core/records.h"

namespace cuptitrace {

class TraceStore {
 public:
  explicit TraceStore(uint64_t maxBytes = UINT64_MAX) : maxBytes_(maxBytes) {}
  TraceStore(const TraceStore&) = delete;
  TraceStore& operator=(const TraceStore&) = delete;

  void setMaxBytes(uint64_t maxBytes) { maxBytes_ = maxBytes; }
  uint64_t maxBytes() const { return maxBytes_; }

  // Appends a record; false (and the record counted as dropped) past the budget.
  template <typename T>
  bool add(const T& record) {
    auto& seq = std::get<ChunkedVector<T>>(sequences_);
    constexpr auto kind = static_cast<size_t>(RecordKindOf<T>::value);
    if (seq.needsChunk()) {
      if (bytesReserved_ + ChunkedVector<T>::kChunkBytes > maxBytes_) {
        ++dropped_[kind];
        return false;
      }
      bytesReserved_ += ChunkedVector<T>::kChunkBytes;
    }
    seq.push_back(record);
    return true;
  }

  template <typename T>
  const ChunkedVector<T>& records() const { return std::get<ChunkedVector<T>>(sequences_); }
  template <typename T>
  ChunkedVector<T>& mutableRecords() { return std::get<ChunkedVector<T>>(sequences_); }

  // Number of records stored, and dropped for the budget, per kind.
  uint64_t count(RecordKind kind) const;
  uint64_t dropped(RecordKind kind) const { return dropped_[static_cast<size_t>(kind)]; }
  void addDropped(RecordKind kind, uint64_t n) { dropped_[static_cast<size_t>(kind)] += n; }
  uint64_t totalDropped() const;
  uint64_t bytesReserved() const { return bytesReserved_; }

 private:
  template <typename... Ts>
  static std::tuple<ChunkedVector<Ts>...> sequencesOf(RecordTypeList<Ts...>);

  decltype(sequencesOf(AllRecordTypes{})) sequences_;
  std::array<uint64_t, kRecordKindCount> dropped_{};
  uint64_t maxBytes_;
  uint64_t bytesReserved_ = 0;
};

// Calls f(const ChunkedVector<T>&) for every kind's sequence, in RecordKind order.
template <typename F>
void forEachKind(const TraceStore& store, F&& f) {
  forEachRecordType([&](auto tag) { f(store.records<typename decltype(tag)::type>()); });
}

}  // namespace cuptitrace
