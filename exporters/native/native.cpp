// The native trace file.
//
// Layout (all integers little-endian):
//
//   "CUPTITRC"            8 bytes of magic
//   uint32 version        kFormatVersion
//   sections, each:       uint32 tag, uint64 payload length, payload
//     STRINGS  (1)        uint32 count, then count x (uint32 length, bytes): ids 1..count in
//                         order; id 0 is "" and is not written
//     METADATA (2)        TraceMetadata's head fields, config pairs, devices, contexts,
//                         stream/thread/device names, counters, per-kind dropped counts, then
//                         fields added since (capture windows, ..., context names, rank; see
//                         writeMetadata); the scalar fields as core/trace_metadata_fields.h
//                         places them
//     RECORDS  (3)        uint8 kind, uint32 sizeof(record), uint64 count, raw records;
//                         one section per kind, several for one kind are appended
//     END      (0)        empty; a file without it is truncated
//
// Every section says its length, so a reader skips a section it does not know
// and notices a file that ends early. Records are written raw: their layout is
// fixed by the static_asserts in core/records.h, and the size stored with each
// RECORDS section makes a reader refuse records of a different layout instead
// of misreading them. Changing a record struct means raising kFormatVersion.
#include "exporters/native/native.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "core/binary_io.h"
#include "core/fd_stream.h"
#include "core/trace_info_io.h"

namespace cuptitrace {
namespace {

constexpr char kMagic[8] = {'C', 'U', 'P', 'T', 'I', 'T', 'R', 'C'};
constexpr uint32_t kFormatVersion = 1;

enum SectionTag : uint32_t { kTagEnd = 0, kTagStrings = 1, kTagMetadata = 2, kTagRecords = 3 };

// uint8 kind + uint32 record size + uint64 count.
constexpr uint64_t kRecordsHeaderBytes = 1 + 4 + 8;

// Bytes gathered before they are handed to the stream: one write per block
// instead of one per field.
constexpr size_t kFlushBytes = size_t{1} << 20;

// ---- writing ----------------------------------------------------------------

class NativeWriter {
 public:
  explicit NativeWriter(std::ostream& out) : out_(out), w_(buffer_) {}

  void write(const Trace& trace) {
    w_.raw(kMagic, sizeof kMagic);
    w_.u32(kFormatVersion);
    writeStrings(trace.strings);
    writeMetadata(trace);
    forEachKind(trace.store, [&](const auto& records) { writeRecords(records); });
    sectionHeader(kTagEnd, 0);
    flush();
  }

 private:
  void sectionHeader(uint32_t tag, uint64_t length) {
    w_.u32(tag);
    w_.u64(length);
  }

  void flushIfFull() {
    if (buffer_.size() >= kFlushBytes) flush();
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

  void writeStrings(const StringTable& strings) {
    // The length comes first, so it is summed before the strings are written.
    uint64_t length = 4;
    for (size_t id = 1; id < strings.size(); ++id)
      length += 4 + strings.get(static_cast<StringId>(id)).size();
    sectionHeader(kTagStrings, length);
    w_.u32(static_cast<uint32_t>(strings.size() - 1));
    for (size_t id = 1; id < strings.size(); ++id) {
      w_.str(strings.get(static_cast<StringId>(id)));
      flushIfFull();
    }
  }

  void writeMetadata(const Trace& trace) {
    // Small and of variable shape: built in its own buffer to learn its length.
    std::string body;
    binary_io::ByteWriter m(body);
    const TraceMetadata& meta = trace.meta;
    binary_io::writeMetadataHead(m, meta);
    binary_io::writeDevices(m, trace.devices);
    binary_io::writeContexts(m, trace.contexts);
    for (const auto* names : {&trace.streamNames, &trace.threadNames, &trace.deviceNames})
      binary_io::writeNames(m, *names);
    m.u32(static_cast<uint32_t>(trace.counters.size()));
    for (const auto& [name, value] : trace.counters) {
      m.str(name);
      m.u64(value);
    }
    m.u32(kRecordKindCount);
    for (int k = 0; k < kRecordKindCount; ++k)
      m.u64(trace.store.dropped(static_cast<RecordKind>(k)));
    // Added after the first release: older readers skip bytes past the dropped counts.
    m.u32(static_cast<uint32_t>(meta.captureWindows.size()));
    for (const CaptureSpan& w : meta.captureWindows) {
      m.u64(w.startNs);
      m.u64(w.endNs);
    }
    // Added later still: the wall-clock offset, as exporters use it (measured or derived).
    binary_io::writeMetadataFields(m, meta, NativePlace::WallClock);
    // Then the devices' memory bandwidth, L2 cache and copy engines, in device order.
    m.u32(static_cast<uint32_t>(trace.devices.size()));
    for (const DeviceInfo& d : trace.devices) {
      m.u64(d.memoryBandwidthKBps);
      m.u32(d.l2CacheBytes);
      m.u32(d.copyEngines);
    }
    // Then the contexts' NVTX names.
    binary_io::writeNames(m, trace.contextNames);
    // Then the rank (core/rank_info.h).
    binary_io::writeRank(m, meta);
    // Then the devices' occupancy limits, in device order.
    m.u32(static_cast<uint32_t>(trace.devices.size()));
    for (const DeviceInfo& d : trace.devices)
      for (const uint32_t v : {d.threadsPerWarp, d.maxWarpsPerSm, d.maxBlocksPerSm, d.registersPerSm,
                               d.registersPerBlock, d.sharedMemoryPerSm, d.sharedMemoryPerBlock,
                               d.maxThreadsPerBlock})
        m.u32(v);

    sectionHeader(kTagMetadata, body.size());
    buffer_ += body;
    flushIfFull();
  }

  template <typename T, size_t ChunkRecords>
  void writeRecords(const ChunkedVector<T, ChunkRecords>& records) {
    const uint64_t count = records.size();
    sectionHeader(kTagRecords, kRecordsHeaderBytes + count * sizeof(T));
    w_.u8(static_cast<uint8_t>(RecordKindOf<T>::value));
    w_.u32(static_cast<uint32_t>(sizeof(T)));
    w_.u64(count);
    flush();
    // Straight from the store's chunks: each chunk's records are contiguous.
    // Into a file, they are not copied here: the file's writer threads write
    // a chunk in memory from where it is, and the kernel copies a spilled
    // one from the spill file (no page of it mapped in).
    auto* file = dynamic_cast<FdStreamBuf*>(out_.rdbuf());
    for (size_t c = 0; c < records.chunkCount(); ++c) {
      const size_t bytes = records.chunkSize(c) * sizeof(T);
      uint64_t offset = 0;
      const int spillFd = file != nullptr ? records.chunkSource(c, offset) : -1;
      if (spillFd >= 0) {
        if (file->putFrom(spillFd, offset, bytes) != 0) out_.setstate(std::ios::badbit);
      } else if (file != nullptr && !records.chunkSpilled(c)) {
        if (file->putHeld(reinterpret_cast<const char*>(records.chunkData(c)), bytes) != 0)
          out_.setstate(std::ios::badbit);
      } else {
        out_.write(reinterpret_cast<const char*>(records.chunkData(c)), static_cast<std::streamsize>(bytes));
      }
    }
  }

  std::ostream& out_;
  std::string buffer_;
  binary_io::ByteWriter w_;
};

// ---- reading ----------------------------------------------------------------

// String ids a record refers to must exist in the file's string table; a
// record pointing past it comes from a corrupt file.
StringId maxStringId(const KernelRecord& r) { return r.name; }
StringId maxStringId(const MemcpyRecord&) { return kNoString; }
StringId maxStringId(const MemsetRecord&) { return kNoString; }
StringId maxStringId(const ApiRecord& r) { return r.name; }
StringId maxStringId(const NvtxRecord& r) { return std::max(r.message, r.domain); }
StringId maxStringId(const SyncRecord&) { return kNoString; }
StringId maxStringId(const OverheadRecord& r) { return r.name; }
StringId maxStringId(const MemoryRecord&) { return kNoString; }
StringId maxStringId(const MemoryPoolRecord&) { return kNoString; }
StringId maxStringId(const UvmRecord&) { return kNoString; }
StringId maxStringId(const GraphRecord&) { return kNoString; }
StringId maxStringId(const ExternalIdRecord&) { return kNoString; }
StringId maxStringId(const OpenAccRecord& r) {
  return std::max({r.srcFile, r.funcName, r.varName, r.kernelName});
}
StringId maxStringId(const GpuMetricRecord& r) { return r.metricSet; }

class NativeReader {
 public:
  NativeReader(std::istream& in, Trace& trace, std::string& error)
      : in_(in), trace_(trace), error_(error) {}

  bool read() {
    if (trace_.strings.size() != 1 || trace_.store.totalDropped() != 0 || !storeEmpty())
      return fail("readNative needs an empty Trace to read into");

    char magic[sizeof kMagic];
    if (!readExact(magic, sizeof magic)) {
      return fail(offset_ == 0 ? "empty input: not a cuptitrace native trace"
                               : "not a cuptitrace native trace (shorter than its header)");
    }
    if (std::memcmp(magic, kMagic, sizeof kMagic) != 0)
      return fail("not a cuptitrace native trace (bad magic; expected \"CUPTITRC\")");
    uint32_t version = 0;
    if (!readExact(&version, sizeof version)) return truncated("the header");
    if (version != kFormatVersion) {
      return fail("unsupported native trace format version " + std::to_string(version) +
                  " (this build reads version " + std::to_string(kFormatVersion) + ")");
    }

    for (;;) {
      uint32_t tag = 0;
      uint64_t length = 0;
      const uint64_t sectionOffset = offset_;
      if (!readExact(&tag, sizeof tag) || !readExact(&length, sizeof length))
        return truncated("a section header at byte " + std::to_string(sectionOffset));
      switch (tag) {
        case kTagEnd:
          if (length != 0) return fail("malformed END section (non-zero length)");
          return finish();
        case kTagStrings:
          if (!readStrings(length)) return false;
          break;
        case kTagMetadata:
          if (!readMetadata(length)) return false;
          break;
        case kTagRecords:
          if (!readRecordsSection(length)) return false;
          break;
        default:
          // A section from a newer writer that this reader does not know.
          if (!skip(length))
            return truncated("an unknown section (tag " + std::to_string(tag) + ")");
          break;
      }
    }
  }

 private:
  bool fail(const std::string& message) {
    error_ = "native trace: " + message;
    return false;
  }
  bool truncated(const std::string& where) {
    return fail("file is truncated (ends inside " + where + ")");
  }

  bool readExact(void* out, size_t n) {
    const bool ok = binary_io::readExact(in_, out, n);
    offset_ += static_cast<uint64_t>(in_.gcount());
    return ok;
  }
  bool readSection(uint64_t length, std::string& body) {
    const bool ok = binary_io::readBounded(in_, length, body);
    offset_ += body.size();
    return ok;
  }
  bool skip(uint64_t length) {
    if (!binary_io::skipBytes(in_, length)) return false;
    offset_ += length;
    return true;
  }

  bool storeEmpty() const {
    for (int k = 0; k < kRecordKindCount; ++k)
      if (trace_.store.count(static_cast<RecordKind>(k)) != 0) return false;
    return true;
  }

  bool finish() {
    if (!haveStrings_) return fail("missing STRINGS section");
    if (!haveMetadata_) return fail("missing METADATA section");
    // Records of kinds this build does not know were skipped: say so in the trace.
    if (skippedRecords_ != 0) trace_.counters["skipped.native_unknown_kind"] += skippedRecords_;
    return true;
  }

  bool readStrings(uint64_t length) {
    if (haveStrings_) return fail("duplicate STRINGS section");
    haveStrings_ = true;
    std::string body;
    if (!readSection(length, body)) return truncated("the STRINGS section");
    binary_io::ByteReader r(body);
    uint32_t count = 0;
    if (!r.u32(count)) return fail("malformed STRINGS section (no count)");
    for (uint64_t expected = 1; expected <= count; ++expected) {
      std::string_view s;
      if (!r.strView(s)) {
        return fail("malformed STRINGS section (string " + std::to_string(expected) + " of " +
                    std::to_string(count) + " runs past the section)");
      }
      // Records name strings by id, so every string gets back the id it had
      // when written, repeated text included (a writer's string index may
      // have forgotten a string and given its text a second id).
      const StringId id = trace_.strings.append(s);
      if (id != expected) return fail("malformed STRINGS section (ids out of sequence)");
    }
    if (r.remaining() != 0) return fail("malformed STRINGS section (bytes after the last string)");
    return true;
  }

  bool readMetadata(uint64_t length) {
    if (haveMetadata_) return fail("duplicate METADATA section");
    haveMetadata_ = true;
    std::string body;
    if (!readSection(length, body)) return truncated("the METADATA section");
    binary_io::ByteReader r(body);
    TraceMetadata& meta = trace_.meta;
    // Counts come from the file: never reserve from them, only grow as
    // entries are actually read, so a corrupt count cannot allocate much.
    bool ok = binary_io::readMetadataHead(r, meta) && binary_io::readDevices(r, trace_.devices) &&
              binary_io::readContexts(r, trace_.contexts);
    for (auto* names : {&trace_.streamNames, &trace_.threadNames, &trace_.deviceNames})
      ok = ok && binary_io::readNames(r, *names);
    uint32_t n = 0;
    ok = ok && r.u32(n);
    for (uint32_t i = 0; ok && i < n; ++i) {
      std::string name;
      uint64_t value = 0;
      ok = r.str(name) && r.u64(value);
      if (ok) trace_.counters[std::move(name)] = value;
    }
    ok = ok && r.u32(n);
    for (uint32_t k = 0; ok && k < n; ++k) {
      uint64_t dropped = 0;
      ok = r.u64(dropped);
      // Dropped counts of kinds this build does not know still count as lost.
      if (ok && k < static_cast<uint32_t>(kRecordKindCount))
        trace_.store.addDropped(static_cast<RecordKind>(k), dropped);
      else if (ok)
        trace_.counters["dropped.native_unknown_kind"] += dropped;
    }
    // Capture windows: absent in traces written before they were saved.
    if (ok && r.remaining() > 0) {
      ok = r.u32(n);
      for (uint32_t i = 0; ok && i < n; ++i) {
        CaptureSpan w;
        ok = r.u64(w.startNs) && r.u64(w.endNs);
        if (ok) meta.captureWindows.push_back(w);
      }
    }
    // The wall-clock offset: absent before it was saved, then derived from the start times.
    if (ok && r.remaining() > 0) ok = binary_io::readMetadataFields(r, meta, NativePlace::WallClock);
    // Device details: absent before they were saved.
    if (ok && r.remaining() > 0) {
      ok = r.u32(n);
      for (uint32_t i = 0; ok && i < n; ++i) {
        DeviceInfo extra;
        ok = r.u64(extra.memoryBandwidthKBps) && r.u32(extra.l2CacheBytes) && r.u32(extra.copyEngines);
        if (ok && i < trace_.devices.size()) {
          trace_.devices[i].memoryBandwidthKBps = extra.memoryBandwidthKBps;
          trace_.devices[i].l2CacheBytes = extra.l2CacheBytes;
          trace_.devices[i].copyEngines = extra.copyEngines;
        }
      }
    }
    // Context names: absent before they were saved.
    if (ok && r.remaining() > 0) ok = binary_io::readNames(r, trace_.contextNames);
    // The rank: absent before it was saved (the process then has none).
    if (ok && r.remaining() > 0) ok = binary_io::readRank(r, meta);
    // Occupancy limits: absent before they were saved.
    if (ok && r.remaining() > 0) {
      ok = r.u32(n);
      for (uint32_t i = 0; ok && i < n; ++i) {
        uint32_t v[8] = {};
        for (uint32_t& x : v) ok = ok && r.u32(x);
        if (ok && i < trace_.devices.size()) {
          DeviceInfo& d = trace_.devices[i];
          d.threadsPerWarp = v[0];
          d.maxWarpsPerSm = v[1];
          d.maxBlocksPerSm = v[2];
          d.registersPerSm = v[3];
          d.registersPerBlock = v[4];
          d.sharedMemoryPerSm = v[5];
          d.sharedMemoryPerBlock = v[6];
          d.maxThreadsPerBlock = v[7];
        }
      }
    }
    if (!ok) return fail("malformed METADATA section (a field runs past the section)");
    // Bytes left over are fields added by a newer writer of the same version: ignored.
    return true;
  }

  bool readRecordsSection(uint64_t length) {
    if (!haveStrings_) return fail("RECORDS section before the STRINGS section");
    if (length < kRecordsHeaderBytes)
      return fail("malformed RECORDS section (shorter than its header)");
    uint8_t kind = 0;
    uint32_t size = 0;
    uint64_t count = 0;
    if (!readExact(&kind, sizeof kind) || !readExact(&size, sizeof size) ||
        !readExact(&count, sizeof count))
      return truncated("a RECORDS section header");
    const uint64_t payload = length - kRecordsHeaderBytes;
    if (size == 0 || count > payload / size || count * size != payload) {
      return fail("malformed RECORDS section (" + std::to_string(count) + " records of " +
                  std::to_string(size) + " bytes do not fill " + std::to_string(payload) +
                  " bytes)");
    }
    if (kind < kRecordKindCount) {
      bool ok = false;
      visitRecordKind(static_cast<RecordKind>(kind),
                      [&](auto tag) { ok = readRecords<typename decltype(tag)::type>(size, count); });
      return ok;
    }
    // A kind added after this build: skipped, and counted in finish().
    if (!skip(payload))
      return truncated("a RECORDS section of unknown kind " + std::to_string(kind));
    skippedRecords_ += count;
    return true;
  }

  template <typename T>
  bool readRecords(uint32_t size, uint64_t count) {
    const char* kindName = recordKindName(RecordKindOf<T>::value);
    if (size != sizeof(T)) {
      return fail(std::string("record size mismatch for ") + kindName + " records: the file has " +
                  std::to_string(size) + " bytes, this build expects " + std::to_string(sizeof(T)) +
                  " (written by an incompatible build)");
    }
    const auto limit = static_cast<StringId>(trace_.strings.size());
    // Through a bounded buffer: `count` is only trusted as far as records arrive.
    std::vector<T> piece(static_cast<size_t>(std::min<uint64_t>(count, 4096)));
    while (count > 0) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(count, piece.size()));
      if (!readExact(piece.data(), n * sizeof(T)))
        return truncated(std::string("the ") + kindName + " records");
      for (size_t i = 0; i < n; ++i) {
        if (maxStringId(piece[i]) >= limit) {
          return fail(std::string("a ") + kindName + " record names string id " +
                      std::to_string(maxStringId(piece[i])) + ", past the string table (" +
                      std::to_string(limit) + " strings)");
        }
      }
      trace_.store.addMany(piece.data(), n);
      count -= n;
    }
    return true;
  }

  std::istream& in_;
  Trace& trace_;
  std::string& error_;
  uint64_t offset_ = 0;
  bool haveStrings_ = false;
  bool haveMetadata_ = false;
  uint64_t skippedRecords_ = 0;
};

}  // namespace

void writeNative(const Trace& trace, std::ostream& out) { NativeWriter(out).write(trace); }

bool readNative(std::istream& in, Trace& trace, std::string& error) {
  return NativeReader(in, trace, error).read();
}

}  // namespace cuptitrace
