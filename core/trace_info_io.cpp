#include "core/trace_info_io.h"

#include <type_traits>
#include <utility>

namespace cuptitrace::binary_io {

namespace {

// A field's encoding follows its type; a signed 64-bit value is written as
// its two's complement.
template <class T>
void put(ByteWriter& w, const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    w.str(v);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    w.u32(v);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    w.i32(v);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    w.u64(v);
  } else {
    static_assert(std::is_same_v<T, int64_t>, "a metadata field of a type the native format lacks");
    w.u64(static_cast<uint64_t>(v));
  }
}

template <class T>
bool get(ByteReader& r, const MetadataField& f, T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return r.str(v);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    return r.u32(v);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return r.i32(v);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return r.u64(v);
  } else {
    static_assert(std::is_same_v<T, int64_t>, "a metadata field of a type the native format lacks");
    uint64_t bits = 0;
    if (!r.u64(bits)) return false;
    v = static_cast<int64_t>(bits);
    if (f.omitted == Omitted::WhenNegative && v < 0) v = -1;  // any negative value is "none"
    return true;
  }
}

}  // namespace

void writeMetadataFields(ByteWriter& w, const TraceMetadata& meta, NativePlace place) {
  visitMetadataFields(meta, [&](const MetadataField& f, const auto& value) {
    if (f.native == place) put(w, value);
  });
}

bool readMetadataFields(ByteReader& r, TraceMetadata& meta, NativePlace place) {
  bool ok = true;
  visitMetadataFields(meta, [&](const MetadataField& f, auto& value) {
    if (ok && f.native == place) ok = get(r, f, value);
  });
  return ok;
}

void writeMetadataHead(ByteWriter& w, const TraceMetadata& meta) {
  writeMetadataFields(w, meta, NativePlace::Head);
  w.u32(static_cast<uint32_t>(meta.config.size()));
  for (const auto& [name, value] : meta.config) {
    w.str(name);
    w.str(value);
  }
}

bool readMetadataHead(ByteReader& r, TraceMetadata& m) {
  uint32_t n = 0;
  bool ok = readMetadataFields(r, m, NativePlace::Head) && r.u32(n);
  for (uint32_t i = 0; ok && i < n; ++i) {
    std::pair<std::string, std::string> kv;
    ok = r.str(kv.first) && r.str(kv.second);
    if (ok) m.config.push_back(std::move(kv));
  }
  return ok;
}

void writeDevices(ByteWriter& w, const std::vector<DeviceInfo>& devices) {
  w.u32(static_cast<uint32_t>(devices.size()));
  for (const DeviceInfo& d : devices) {
    w.u32(d.id);
    w.str(d.name);
    w.u32(d.computeMajor);
    w.u32(d.computeMinor);
    w.u32(d.multiprocessors);
    w.u64(d.globalMemoryBytes);
    w.u32(d.coreClockKHz);
    w.str(d.uuid);
  }
}

bool readDevices(ByteReader& r, std::vector<DeviceInfo>& devices) {
  uint32_t n = 0;
  bool ok = r.u32(n);
  for (uint32_t i = 0; ok && i < n; ++i) {
    DeviceInfo d;
    ok = r.u32(d.id) && r.str(d.name) && r.u32(d.computeMajor) && r.u32(d.computeMinor) &&
         r.u32(d.multiprocessors) && r.u64(d.globalMemoryBytes) && r.u32(d.coreClockKHz) && r.str(d.uuid);
    if (ok) devices.push_back(std::move(d));
  }
  return ok;
}

void writeContexts(ByteWriter& w, const std::vector<ContextInfo>& contexts) {
  w.u32(static_cast<uint32_t>(contexts.size()));
  for (const ContextInfo& c : contexts) {
    w.u32(c.contextId);
    w.u32(c.deviceId);
    w.u32(c.nullStreamId);
  }
}

bool readContexts(ByteReader& r, std::vector<ContextInfo>& contexts) {
  uint32_t n = 0;
  bool ok = r.u32(n);
  for (uint32_t i = 0; ok && i < n; ++i) {
    ContextInfo c;
    ok = r.u32(c.contextId) && r.u32(c.deviceId) && r.u32(c.nullStreamId);
    if (ok) contexts.push_back(c);
  }
  return ok;
}

void writeRank(ByteWriter& w, const TraceMetadata& meta) { writeMetadataFields(w, meta, NativePlace::Rank); }

bool readRank(ByteReader& r, TraceMetadata& meta) { return readMetadataFields(r, meta, NativePlace::Rank); }

void writeNames(ByteWriter& w, const std::map<uint32_t, std::string>& names) {
  w.u32(static_cast<uint32_t>(names.size()));
  for (const auto& [id, name] : names) {
    w.u32(id);
    w.str(name);
  }
}

bool readNames(ByteReader& r, std::map<uint32_t, std::string>& names) {
  uint32_t n = 0;
  bool ok = r.u32(n);
  for (uint32_t i = 0; ok && i < n; ++i) {
    uint32_t id = 0;
    std::string name;
    ok = r.u32(id) && r.str(name);
    if (ok) names[id] = std::move(name);
  }
  return ok;
}

}  // namespace cuptitrace::binary_io
