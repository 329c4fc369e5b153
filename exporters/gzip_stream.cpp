#include "exporters/gzip_stream.h"

#include <sstream>
#include <string>

namespace cuptitrace {
namespace {

constexpr size_t kPendingBytes = 64 << 10;

// ID1 ID2, CM = 8 (deflate), FLG = 0, MTIME = 0 (the same trace gives the
// same bytes), XFL = 0, OS = 3 (Unix).
constexpr char kHeader[10] = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, 3};

void putLe32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

}  // namespace

GzipStreamBuf::GzipStreamBuf(std::ostream& sink) : sink_(sink), pending_(kPendingBytes) {
  setp(pending_.data(), pending_.data() + pending_.size());
  sink_.write(kHeader, sizeof kHeader);
  if (!sink_) fail();
}

GzipStreamBuf::~GzipStreamBuf() {
  try {
    finish();
  } catch (...) {
    // A destructor must not throw; the sink's state says what happened.
  }
}

bool GzipStreamBuf::fail() {
  failed_ = true;
  sink_.setstate(std::ios::badbit);
  setp(nullptr, nullptr);
  return false;
}

bool GzipStreamBuf::drain() {
  auto& out = encoder_.output();
  if (!out.empty()) {
    sink_.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
    out.clear();
  }
  return sink_ ? true : fail();
}

bool GzipStreamBuf::take(const char* data, size_t size) {
  if (failed_ || finished_) return fail();
  crc_ = crc32(crc_, data, size);
  size_ += size;
  encoder_.write(data, size);
  return drain();
}

bool GzipStreamBuf::takePending() {
  if (failed_) return false;
  const size_t n = static_cast<size_t>(pptr() - pbase());
  setp(pending_.data(), pending_.data() + pending_.size());
  return n == 0 || take(pending_.data(), n);
}

GzipStreamBuf::int_type GzipStreamBuf::overflow(int_type ch) {
  if (!takePending()) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

std::streamsize GzipStreamBuf::xsputn(const char* s, std::streamsize n) {
  if (n <= 0) return 0;
  if (n <= epptr() - pptr()) {
    std::char_traits<char>::copy(pptr(), s, static_cast<size_t>(n));
    pbump(static_cast<int>(n));
    return n;
  }
  if (!takePending() || !take(s, static_cast<size_t>(n))) return 0;
  return n;
}

int GzipStreamBuf::sync() { return failed_ || !sink_ ? -1 : 0; }

bool GzipStreamBuf::finish() {
  if (finished_) return !failed_;
  if (!takePending()) {
    finished_ = true;
    return false;
  }
  finished_ = true;
  setp(nullptr, nullptr);
  encoder_.finish();
  if (!drain()) return false;
  char trailer[8];
  putLe32(trailer, crc_);
  putLe32(trailer + 4, static_cast<uint32_t>(size_));  // ISIZE: the length modulo 2^32
  sink_.write(trailer, sizeof trailer);
  return sink_ ? true : fail();
}

std::vector<uint8_t> gzipBytes(const void* data, size_t size) {
  std::ostringstream out;
  {
    GzipOStream gz(out);
    gz.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    gz.finish();
  }
  const std::string s = out.str();
  return std::vector<uint8_t>(s.begin(), s.end());
}

}  // namespace cuptitrace
