#include "exporters/gzip_stream.h"

#include <zlib.h>

#include <sstream>
#include <string>

namespace cuptitrace {
namespace {

constexpr size_t kPendingBytes = 64 << 10;
constexpr size_t kOutBytes = 64 << 10;
// windowBits 15 (32 KiB, the most DEFLATE allows), plus 16: a gzip header and
// trailer instead of zlib's. zlib's gzip header has no name and MTIME 0, so
// the same trace gives the same bytes.
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemLevel = 8;  // zlib's default: about 256 KiB of state

}  // namespace

struct GzipStreamBuf::Zlib {
  z_stream stream{};
  bool ready = false;
};

GzipStreamBuf::GzipStreamBuf(std::ostream& sink, int level)
    : sink_(sink), zlib_(std::make_unique<Zlib>()), pending_(kPendingBytes), out_(kOutBytes) {
  setp(pending_.data(), pending_.data() + pending_.size());
  zlib_->ready = deflateInit2(&zlib_->stream, level, Z_DEFLATED, kGzipWindowBits, kMemLevel,
                              Z_DEFAULT_STRATEGY) == Z_OK;
  if (!zlib_->ready) fail();
}

GzipStreamBuf::~GzipStreamBuf() {
  try {
    finish();
  } catch (...) {
    // A destructor must not throw; the sink's state says what happened.
  }
  if (zlib_->ready) deflateEnd(&zlib_->stream);
}

bool GzipStreamBuf::fail() {
  failed_ = true;
  sink_.setstate(std::ios::badbit);
  setp(nullptr, nullptr);
  return false;
}

// Gives zlib `size` bytes (the last ones when `last`) and moves what it
// produces on to the sink, in pieces of out_'s size.
bool GzipStreamBuf::compress(const char* data, size_t size, bool last) {
  if (failed_) return false;
  z_stream& z = zlib_->stream;
  // avail_in is 32 bits: larger writes go in slices.
  constexpr size_t kSlice = 1u << 30;
  do {
    const size_t slice = size < kSlice ? size : kSlice;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z.avail_in = static_cast<uInt>(slice);
    data += slice;
    size -= slice;
    const int flush = last && size == 0 ? Z_FINISH : Z_NO_FLUSH;
    int rc = Z_OK;
    do {
      z.next_out = reinterpret_cast<Bytef*>(out_.data());
      z.avail_out = static_cast<uInt>(out_.size());
      rc = deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) return fail();
      const size_t produced = out_.size() - z.avail_out;
      if (produced != 0) sink_.write(out_.data(), static_cast<std::streamsize>(produced));
      if (!sink_) return fail();
    } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  } while (size != 0);
  return true;
}

bool GzipStreamBuf::takePending() {
  if (failed_ || finished_) return failed_ ? false : fail();
  const size_t n = static_cast<size_t>(pptr() - pbase());
  setp(pending_.data(), pending_.data() + pending_.size());
  return n == 0 || compress(pending_.data(), n, false);
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
  if (!takePending() || !compress(s, static_cast<size_t>(n), false)) return 0;
  return n;
}

int GzipStreamBuf::sync() { return failed_ || !sink_ ? -1 : 0; }

bool GzipStreamBuf::finish() {
  if (finished_) return !failed_;
  const bool taken = takePending();
  finished_ = true;
  setp(nullptr, nullptr);
  if (!taken) return false;
  // The final block, then zlib's gzip trailer (CRC-32 and length).
  return compress(nullptr, 0, true);
}

std::vector<uint8_t> gzipBytes(const void* data, size_t size, int level) {
  std::ostringstream out;
  {
    GzipOStream gz(out, level);
    gz.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    gz.finish();
  }
  const std::string s = out.str();
  return std::vector<uint8_t>(s.begin(), s.end());
}

}  // namespace cuptitrace
