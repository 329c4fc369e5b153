// An output stream that writes gzip (RFC 1952) into another stream,
// compressing as bytes arrive, through zlib's deflate stream: the text it is
// given is never held whole in memory. PREFIX.json.gz is the Chrome JSON
// written through one; Perfetto opens it as it is.
//
// zlib is linked statically and hidden inside libcuptitrace.so (its symbols
// are not exported), so a program's own zlib, of whatever version, is never
// the one we call nor disturbed by ours.
//
// A failure of the stream underneath (a full disk) fails this stream too,
// and the underneath stream keeps its own failed state, so exporters and
// core/file_output.h see write errors as they would without gzip.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <streambuf>
#include <vector>

namespace cuptitrace {

// The zlib level json.gz is written with (see the measurements in README.md).
inline constexpr int kGzipLevel = 6;

class GzipStreamBuf : public std::streambuf {
 public:
  explicit GzipStreamBuf(std::ostream& sink, int level = kGzipLevel);
  // Finishes the stream if finish() was not called (errors then go unseen
  // except in the sink's state).
  ~GzipStreamBuf() override;
  GzipStreamBuf(const GzipStreamBuf&) = delete;
  GzipStreamBuf& operator=(const GzipStreamBuf&) = delete;

  // Writes the last block and the trailer (CRC-32, length). Returns false
  // when anything could not be written. Later writes fail.
  bool finish();

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  // Flushing compresses nothing early (that would cost compression on every
  // flush); it reports whether the stream is still good.
  int sync() override;

 private:
  struct Zlib;
  bool compress(const char* data, size_t size, bool last);
  bool takePending();
  bool fail();

  std::ostream& sink_;
  std::unique_ptr<Zlib> zlib_;
  std::vector<char> pending_;  // the put area: small writes gather here
  std::vector<char> out_;      // compressed bytes on their way to the sink
  bool finished_ = false;
  bool failed_ = false;
};

class GzipOStream : public std::ostream {
 public:
  explicit GzipOStream(std::ostream& sink, int level = kGzipLevel)
      : std::ostream(nullptr), buf_(sink, level) {
    rdbuf(&buf_);
  }
  // See GzipStreamBuf::finish; a failure also sets badbit here.
  bool finish() {
    const bool ok = buf_.finish();
    if (!ok) setstate(std::ios::badbit);
    return ok;
  }

 private:
  GzipStreamBuf buf_;
};

// The whole gzip file of `data`, in one call.
std::vector<uint8_t> gzipBytes(const void* data, size_t size, int level = kGzipLevel);

}  // namespace cuptitrace
