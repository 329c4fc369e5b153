#include "core/journal_format.h"

#include <array>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace cuptitrace::journal {
namespace {

// Slicing-by-8 tables: the portable path reads eight bytes per step.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

Tables makeTables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i)
    for (size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  return t;
}

uint32_t crcPortable(const unsigned char* p, size_t n, uint32_t crc) {
  static const Tables t = makeTables();
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    v ^= crc;
    crc = t[7][v & 0xff] ^ t[6][(v >> 8) & 0xff] ^ t[5][(v >> 16) & 0xff] ^ t[4][(v >> 24) & 0xff] ^
          t[3][(v >> 32) & 0xff] ^ t[2][(v >> 40) & 0xff] ^ t[1][(v >> 48) & 0xff] ^ t[0][v >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
  return crc;
}

#if defined(__x86_64__)
// The spill writes every record once and checksums it on the drain thread:
// the SSE4.2 instruction keeps that far below the cost of the write itself.
__attribute__((target("sse4.2"))) uint32_t crcSse42(const unsigned char* p, size_t n, uint32_t crc) {
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = _mm_crc32_u64(c, v);
    p += 8;
    n -= 8;
  }
  auto c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}

bool haveSse42() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

uint32_t crc32c(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
#if defined(__x86_64__)
  if (haveSse42()) return ~crcSse42(p, n, crc);
#endif
  return ~crcPortable(p, n, crc);
}

BlockHeader makeHeader(Block type, uint32_t length, uint32_t payloadCrc) {
  BlockHeader h{static_cast<uint32_t>(type), length, payloadCrc, 0};
  h.headerCrc = crc32c(&h, 12);
  return h;
}

bool headerValid(const BlockHeader& h) { return crc32c(&h, 12) == h.headerCrc; }

}  // namespace cuptitrace::journal
