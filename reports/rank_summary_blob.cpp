#include "reports/rank_summary_blob.h"

#include <cstring>

namespace cuptitrace {
namespace {

constexpr char kMagic[4] = {'C', 'T', 'R', 'S'};
constexpr size_t kHeaderBytes = 4 + 2 + 2 + 8;
enum BlobKind : uint16_t { kSummaryBlob = 0, kFailureBlob = 1 };

class Writer {
 public:
  void u16(uint16_t v) { bytes(v, 2); }
  void u32(uint32_t v) { bytes(v, 4); }
  void u64(uint64_t v) { bytes(v, 8); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    out += s;
  }
  std::string out;

 private:
  // Little-endian whatever the host: blobs cross machines.
  void bytes(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
};

// Reads a payload; any read past its end sets `bad` and yields zeros.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  uint16_t u16() { return static_cast<uint16_t>(bytes(2)); }
  uint32_t u32() { return static_cast<uint32_t>(bytes(4)); }
  uint64_t u64() { return bytes(8); }
  std::string str() {
    const uint32_t n = u32();
    if (bad || n > data_.size() - at_) {
      bad = true;
      return {};
    }
    std::string s(data_.substr(at_, n));
    at_ += n;
    return s;
  }
  // A count of items of at least `itemBytes` each: more than the bytes left is damage,
  // caught before anything is reserved for them.
  uint64_t count(uint64_t itemBytes) {
    const uint64_t n = u64();
    if (!bad && n > (data_.size() - at_) / itemBytes) bad = true;
    return bad ? 0 : n;
  }
  bool done() const { return at_ == data_.size(); }
  bool bad = false;

 private:
  uint64_t bytes(int n) {
    if (bad || data_.size() - at_ < static_cast<size_t>(n)) {
      bad = true;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(data_[at_ + i])) << (8 * i);
    at_ += static_cast<size_t>(n);
    return v;
  }
  std::string_view data_;
  size_t at_ = 0;
};

std::string framed(BlobKind kind, const std::string& payload) {
  Writer w;
  w.out.append(kMagic, 4);
  w.u16(kRankSummaryVersion);
  w.u16(kind);
  w.u64(payload.size());
  return w.out + payload;
}

bool decodeSummary(std::string_view payload, RankSummary& s) {
  Reader r(payload);
  s.file = r.str();
  s.host = r.str();
  s.processName = r.str();
  s.pid = r.u32();
  s.rank = static_cast<int64_t>(r.u64());
  s.worldSize = r.u32();
  s.gpus = r.u32();
  for (uint64_t* v : {&s.gpuRecords, &s.computeKernels, &s.commKernels, &s.computeNs, &s.commNs, &s.copyNs,
                      &s.idleNs, &s.spanNs, &s.overlappedNs, &s.dropped})
    *v = r.u64();
  for (uint64_t c = 0, n = r.count(4 + 8); c < n && !r.bad; ++c) {
    std::string name = r.str();
    std::vector<CollectiveInstance> instances(r.count(16));
    for (CollectiveInstance& i : instances) {
      i.start = r.u64();
      i.durationNs = r.u64();
    }
    s.collectives[std::move(name)] = std::move(instances);
  }
  for (uint64_t k = 0, n = r.count(4 + 32); k < n && !r.bad; ++k) {
    std::string name = r.str();
    KernelTotals& t = s.kernels[std::move(name)];
    t.count = r.u64();
    t.totalNs = r.u64();
    t.minNs = r.u64();
    t.maxNs = r.u64();
  }
  return !r.bad && r.done();
}

}  // namespace

std::string encodeRankSummary(const RankSummary& s) {
  Writer w;
  w.str(s.file);
  w.str(s.host);
  w.str(s.processName);
  w.u32(s.pid);
  w.u64(static_cast<uint64_t>(s.rank));
  w.u32(s.worldSize);
  w.u32(s.gpus);
  for (const uint64_t v : {s.gpuRecords, s.computeKernels, s.commKernels, s.computeNs, s.commNs, s.copyNs,
                           s.idleNs, s.spanNs, s.overlappedNs, s.dropped})
    w.u64(v);
  w.u64(s.collectives.size());
  for (const auto& [name, instances] : s.collectives) {
    w.str(name);
    w.u64(instances.size());
    for (const CollectiveInstance& i : instances) {
      w.u64(i.start);
      w.u64(i.durationNs);
    }
  }
  w.u64(s.kernels.size());
  for (const auto& [name, t] : s.kernels) {
    w.str(name);
    w.u64(t.count);
    w.u64(t.totalNs);
    w.u64(t.minNs);
    w.u64(t.maxNs);
  }
  return framed(kSummaryBlob, w.out);
}

std::string encodeRankFailure(const RankFailure& f) {
  Writer w;
  w.str(f.file);
  w.str(f.error);
  return framed(kFailureBlob, w.out);
}

bool decodeRankBlobs(std::string_view data, RankBlobs& out, std::string& error) {
  size_t at = 0;
  while (at < data.size()) {
    const std::string where = " at byte " + std::to_string(at);
    if (data.size() - at < kHeaderBytes) {
      error = "truncated rank summary" + where + " (a header needs " + std::to_string(kHeaderBytes) +
              " bytes, " + std::to_string(data.size() - at) + " left)";
      return false;
    }
    if (std::memcmp(data.data() + at, kMagic, 4) != 0) {
      error = "not a rank summary" + where + " (no CTRS mark; made by cuptitrace summarize?)";
      return false;
    }
    Reader header(data.substr(at + 4, kHeaderBytes - 4));
    const uint16_t version = header.u16();
    const uint16_t kind = header.u16();
    const uint64_t length = header.u64();
    if (version != kRankSummaryVersion) {
      error = "rank summary version " + std::to_string(version) + where + " is not readable (this cuptitrace reads version " +
              std::to_string(kRankSummaryVersion) + "; summarize and report with the same cuptitrace)";
      return false;
    }
    if (length > data.size() - at - kHeaderBytes) {
      error = "truncated rank summary" + where + " (" + std::to_string(length) + " bytes announced, " +
              std::to_string(data.size() - at - kHeaderBytes) + " present)";
      return false;
    }
    const std::string_view payload = data.substr(at + kHeaderBytes, length);
    if (kind == kSummaryBlob) {
      RankSummary s;
      if (!decodeSummary(payload, s)) {
        error = "damaged rank summary" + where + " (its fields do not fill its " + std::to_string(length) + " bytes)";
        return false;
      }
      out.summaries.push_back(std::move(s));
    } else if (kind == kFailureBlob) {
      Reader r(payload);
      RankFailure f{r.str(), r.str()};
      if (r.bad || !r.done()) {
        error = "damaged rank summary" + where + " (a failure record that does not fill its bytes)";
        return false;
      }
      out.failures.push_back(std::move(f));
    } else {
      error = "rank summary of unknown kind " + std::to_string(kind) + where;
      return false;
    }
    at += kHeaderBytes + length;
  }
  return true;
}

}  // namespace cuptitrace
