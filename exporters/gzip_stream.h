// An output stream that writes gzip (RFC 1952) into another stream,
// compressing as bytes arrive (exporters/deflate.h): the text it is given is
// never held whole in memory. PREFIX.json.gz is the Chrome JSON written
// through one; Perfetto opens it as it is.
//
// A failure of the stream underneath (a full disk) fails this stream too,
// and the underneath stream keeps its own failed state, so exporters and
// exporters/file_output.h see write errors as they would without gzip.
#pragma once

#include <cstdint>
#include <ostream>
#include <streambuf>
#include <vector>

#include "exporters/deflate.h"

namespace cuptitrace {

class GzipStreamBuf : public std::streambuf {
 public:
  explicit GzipStreamBuf(std::ostream& sink);
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
  bool take(const char* data, size_t size);
  bool takePending();
  bool drain();
  bool fail();

  std::ostream& sink_;
  DeflateEncoder encoder_;
  std::vector<char> pending_;  // the put area: small writes gather here
  uint32_t crc_ = 0;
  uint64_t size_ = 0;
  bool finished_ = false;
  bool failed_ = false;
};

class GzipOStream : public std::ostream {
 public:
  explicit GzipOStream(std::ostream& sink) : std::ostream(nullptr), buf_(sink) { rdbuf(&buf_); }
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
std::vector<uint8_t> gzipBytes(const void* data, size_t size);

}  // namespace cuptitrace
