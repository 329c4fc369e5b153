// DEFLATE (RFC 1951) and CRC-32, for the gzip output (gzip_stream.h).
//
// The project takes no compression library, and trace text is easy to
// compress, so this is a small encoder of our own: LZ77 over a 32 KiB window
// (hash chains on 3-byte prefixes, one step of lazy matching), each block
// sent stored, with the fixed Huffman codes or with codes made for it,
// whichever is smallest. Input is taken in pieces of any size and compressed
// as it arrives; the encoder's memory is fixed (about 1 MiB) whatever the
// length of the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace cuptitrace {

// CRC-32 as gzip and zlib compute it (reflected polynomial 0xEDB88320),
// continued from `crc` (0 to start): crc32(0, "123456789", 9) == 0xCBF43926.
uint32_t crc32(uint32_t crc, const void* data, size_t size);

class DeflateEncoder {
 public:
  DeflateEncoder();
  ~DeflateEncoder();
  DeflateEncoder(const DeflateEncoder&) = delete;
  DeflateEncoder& operator=(const DeflateEncoder&) = delete;

  // Takes `size` more bytes of input; compressed bytes are appended to
  // output() as blocks are completed.
  void write(const void* data, size_t size);
  // Compresses what is left and ends the stream with a final block, padded
  // to a whole byte. Nothing may be written after.
  void finish();
  bool finished() const;

  // Compressed bytes not yet taken: the caller moves them on and clears them.
  std::vector<uint8_t>& output();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The whole raw DEFLATE stream of `data`, in one call.
std::vector<uint8_t> deflateBytes(const void* data, size_t size);

}  // namespace cuptitrace
