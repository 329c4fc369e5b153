#include "exporters/deflate.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace cuptitrace {
namespace {

// ---- CRC-32 -----------------------------------------------------------------

// Slicing by 8: eight bytes per step through eight tables.
struct CrcTables {
  uint32_t t[8][256];
  CrcTables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
};

inline uint32_t load32le(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// ---- DEFLATE constants (RFC 1951 3.2.5) ---------------------------------------

constexpr size_t kWindow = 32768;
constexpr size_t kWindowMask = kWindow - 1;
// Matches reach back less than the whole window: the chain links of
// positions a full window apart share a slot of `prev`.
constexpr size_t kMaxDistance = kWindow - 262;
constexpr uint32_t kMinMatch = 3;
constexpr uint32_t kMaxMatch = 258;
// Input compressed per step; the window's 32 KiB of history sit before it.
constexpr size_t kInputBlock = size_t{1} << 18;
constexpr size_t kBufferBytes = kWindow + kInputBlock;
// Sliding by a whole number of windows keeps each position's slot in `prev`.
static_assert(kInputBlock % kWindow == 0);
// Slack after the buffer: match lengths are measured 8 bytes at a time.
constexpr size_t kSlack = 8;
constexpr int kHashBits = 15;
constexpr size_t kMaxBlockSymbols = size_t{1} << 15;

// Search effort, chosen on trace JSON (see the README's output section for
// what it gives): chains followed at most this far, cut to a quarter once a
// match this long is in hand, a search stopped by a match this long, and no
// lazy look past a match this long.
constexpr int kMaxChain = 32;
constexpr uint32_t kGoodMatch = 32;
constexpr uint32_t kNiceMatch = 128;
constexpr uint32_t kMaxLazy = 64;
// A 3-byte match further back than this costs more than three literals.
constexpr uint32_t kTooFar = 4096;

constexpr int kLitLenCodes = 286;  // 0-255 literals, 256 end of block, 257-285 lengths
constexpr int kDistCodes = 30;
constexpr int kCodeLengthCodes = 19;
constexpr int kEndOfBlock = 256;

constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistBase[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                    33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                    1025, 1537, 2049, 3073, 4097, 6145,  8193,  12289, 16385, 24577};
constexpr uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                    6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
// The order code length code lengths are sent in.
constexpr uint8_t kCodeLengthOrder[kCodeLengthCodes] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                        11, 4,  12, 3, 13, 2, 14, 1, 15};

// Canonical Huffman codes (RFC 1951 3.2.2) for `lengths`, bit-reversed:
// DEFLATE sends codes from their first bit, into a stream read from bit 0.
template <size_t N>
void canonicalCodes(const uint8_t (&lengths)[N], uint16_t (&codes)[N]) {
  uint16_t count[16] = {};
  for (size_t i = 0; i < N; ++i) ++count[lengths[i]];
  count[0] = 0;
  uint16_t next[16] = {};
  uint32_t code = 0;
  for (int bits = 1; bits < 16; ++bits) {
    code = (code + count[bits - 1]) << 1;
    next[bits] = static_cast<uint16_t>(code);
  }
  for (size_t i = 0; i < N; ++i) {
    const int len = lengths[i];
    if (len == 0) {
      codes[i] = 0;
      continue;
    }
    uint32_t c = next[len]++;
    uint32_t reversed = 0;
    for (int b = 0; b < len; ++b, c >>= 1) reversed = (reversed << 1) | (c & 1);
    codes[i] = static_cast<uint16_t>(reversed);
  }
}

struct Tables {
  uint8_t lengthCode[256];   // match length - 3 -> length code index (0-28)
  uint8_t distCodeNear[256]; // distance - 1 (< 256) -> distance code
  uint8_t distCodeFar[256];  // (distance - 1) >> 7 (distance > 256) -> distance code
  uint8_t fixedLitLen[288];
  uint16_t fixedLitCode[288];
  uint8_t fixedDistLen[30];
  uint16_t fixedDistCode[30];
  Tables() {
    for (int c = 0; c < 28; ++c)
      for (int k = 0; k < (1 << kLengthExtra[c]); ++k) {
        const int len = kLengthBase[c] + k;
        if (len < 258) lengthCode[len - 3] = static_cast<uint8_t>(c);
      }
    lengthCode[255] = 28;
    for (int c = 0; c < 30; ++c)
      for (int k = 0; k < (1 << kDistExtra[c]); ++k) {
        const int d = kDistBase[c] + k;
        if (d <= 256) distCodeNear[d - 1] = static_cast<uint8_t>(c);
        else distCodeFar[(d - 1) >> 7] = static_cast<uint8_t>(c);
      }
    for (int i = 0; i < 288; ++i) fixedLitLen[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    canonicalCodes(fixedLitLen, fixedLitCode);
    for (auto& l : fixedDistLen) l = 5;
    canonicalCodes(fixedDistLen, fixedDistCode);
  }
  uint8_t distCode(uint32_t dist) const {
    return dist <= 256 ? distCodeNear[dist - 1] : distCodeFar[(dist - 1) >> 7];
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

// Huffman code lengths for the `n` frequencies, none longer than `maxBits`.
// Symbols of frequency 0 get no code, except that at least two symbols always
// get one: a tree of one code is read differently by different inflaters.
void buildLengths(const uint32_t* freq, int n, int maxBits, uint8_t* lengths) {
  std::fill(lengths, lengths + n, uint8_t{0});
  std::vector<std::pair<uint32_t, int>> used;  // (frequency, symbol)
  used.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    if (freq[i] != 0) used.emplace_back(freq[i], i);
  for (int i = 0; used.size() < 2 && i < n; ++i)
    if (freq[i] == 0) used.emplace_back(0, i);
  std::sort(used.begin(), used.end());
  const size_t m = used.size();

  // Two-queue Huffman over leaves sorted by weight: internal nodes are made
  // in order of weight too, so the two lightest are always at a queue's head.
  std::vector<uint64_t> weight(2 * m - 1);
  std::vector<uint32_t> parent(2 * m - 1, 0);
  for (size_t i = 0; i < m; ++i) weight[i] = used[i].first;
  size_t leaf = 0, inner = m;
  for (size_t node = m; node < 2 * m - 1; ++node) {
    size_t pick[2];
    for (size_t& p : pick) {
      if (leaf < m && (inner >= node || weight[leaf] <= weight[inner])) p = leaf++;
      else p = inner++;
    }
    weight[node] = weight[pick[0]] + weight[pick[1]];
    parent[pick[0]] = parent[pick[1]] = static_cast<uint32_t>(node);
  }
  std::vector<uint32_t> depth(2 * m - 1, 0);
  for (size_t node = 2 * m - 1; node-- > 0;)
    if (node != 2 * m - 2) depth[node] = depth[parent[node]] + 1;

  // Codes per length, the overlong folded into maxBits and the Kraft sum
  // restored by lengthening shorter codes (as miniz does).
  uint32_t count[64] = {};
  for (size_t i = 0; i < m; ++i) ++count[std::min<uint32_t>(depth[i], 63)];
  for (int len = maxBits + 1; len < 64; ++len) {
    count[maxBits] += count[len];
    count[len] = 0;
  }
  uint64_t total = 0;
  for (int len = maxBits; len > 0; --len) total += uint64_t{count[len]} << (maxBits - len);
  while (total != (uint64_t{1} << maxBits)) {
    --count[maxBits];
    for (int len = maxBits - 1; len > 0; --len) {
      if (count[len] != 0) {
        --count[len];
        count[len + 1] += 2;
        break;
      }
    }
    --total;
  }
  // The rarest symbols take the longest codes.
  size_t i = 0;
  for (int len = maxBits; len > 0; --len)
    for (uint32_t k = 0; k < count[len]; ++k) lengths[used[i++].second] = static_cast<uint8_t>(len);
}

}  // namespace

uint32_t crc32(uint32_t crc, const void* data, size_t size) {
  static const CrcTables tables;
  const auto& t = tables.t;
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  while (size >= 8) {
    const uint32_t lo = load32le(p) ^ crc;
    const uint32_t hi = load32le(p + 4);
    crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
          t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    p += 8;
    size -= 8;
  }
  while (size-- > 0) crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

struct DeflateEncoder::State {
  // Input: [0, pos) already compressed (the last 32 KiB of it are the
  // window matches reach into), [pos, end) waiting.
  std::vector<uint8_t> buffer = std::vector<uint8_t>(kBufferBytes + kSlack, 0);
  size_t pos = 0;
  size_t end = 0;
  // Hash chains: head[h] the latest position whose 3 bytes hash to h,
  // prev[p % 32K] the position before p with the same hash; -1 for none.
  std::vector<int32_t> head = std::vector<int32_t>(size_t{1} << kHashBits, -1);
  std::vector<int32_t> prev = std::vector<int32_t>(kWindow, -1);

  // The block being gathered: literals (< 256) and matches (256 + length - 3,
  // with the distance above bit 16), their frequencies, and the input they cover.
  std::vector<uint32_t> symbols;
  uint32_t litFreq[kLitLenCodes] = {};
  uint32_t distFreq[kDistCodes] = {};
  size_t blockStart = 0;
  size_t blockBytes = 0;

  std::vector<uint8_t> out;
  uint64_t bits = 0;  // bits not yet moved to `out`, the first in bit 0
  int bitCount = 0;
  bool finished = false;

  State() { symbols.reserve(kMaxBlockSymbols); }

  // ---- Bits out -------------------------------------------------------------

  void putBits(uint32_t value, int count) {
    bits |= uint64_t{value} << bitCount;
    bitCount += count;
    if (bitCount >= 32) {
      const auto v = static_cast<uint32_t>(bits);
      const uint8_t four[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8),
                               static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)};
      out.insert(out.end(), four, four + 4);
      bits >>= 32;
      bitCount -= 32;
    }
  }
  void alignToByte() {
    while (bitCount > 0) {
      out.push_back(static_cast<uint8_t>(bits));
      bits >>= 8;
      bitCount = std::max(bitCount - 8, 0);
    }
    bits = 0;
  }

  // ---- LZ77 ---------------------------------------------------------------------

  uint32_t hashAt(size_t p) const {
    const uint32_t v = load32le(&buffer[p]) & 0xFFFFFFu;
    return (v * 0x9E3779B1u) >> (32 - kHashBits);
  }
  // Adds position p to its chain; returns the previous head of the chain.
  int32_t insert(size_t p) {
    const uint32_t h = hashAt(p);
    const int32_t candidate = head[h];
    prev[p & kWindowMask] = candidate;
    head[h] = static_cast<int32_t>(p);
    return candidate;
  }

  // Length of the common prefix of a and b, at most `limit`; may read up to
  // 7 bytes past b + limit (the buffer's slack).
  static uint32_t matchLength(const uint8_t* a, const uint8_t* b, uint32_t limit) {
    uint32_t len = 0;
    for (;;) {
      uint64_t x, y;
      std::memcpy(&x, a + len, 8);
      std::memcpy(&y, b + len, 8);
      if (const uint64_t diff = x ^ y) {
        len += static_cast<uint32_t>(__builtin_ctzll(diff)) >> 3;
        return std::min(len, limit);
      }
      len += 8;
      if (len >= limit) return limit;
    }
  }

  // The longest match for `cur` longer than `best`, following the chain from
  // `candidate`; returns its length (or `best` when none is longer).
  uint32_t longestMatch(int32_t candidate, size_t cur, uint32_t limit, uint32_t best, uint32_t& dist) const {
    if (best >= limit) return best;
    int chain = best >= kGoodMatch ? kMaxChain / 4 : kMaxChain;
    const size_t lowest = cur > kMaxDistance ? cur - kMaxDistance : 0;
    const uint8_t* b = &buffer[cur];
    while (candidate >= 0 && static_cast<size_t>(candidate) >= lowest && chain-- > 0) {
      const uint8_t* a = &buffer[static_cast<size_t>(candidate)];
      if (a[best] == b[best] && a[0] == b[0] && a[1] == b[1]) {
        const uint32_t len = matchLength(a, b, limit);
        if (len > best) {
          best = len;
          dist = static_cast<uint32_t>(cur - static_cast<size_t>(candidate));
          if (len >= kNiceMatch || len >= limit) break;
        }
      }
      const int32_t next = prev[static_cast<size_t>(candidate) & kWindowMask];
      if (next >= candidate) break;  // a stale link, from a slot reused
      candidate = next;
    }
    return best;
  }

  void literal(uint8_t c) {
    symbols.push_back(c);
    ++litFreq[c];
    blockBytes += 1;
    if (symbols.size() >= kMaxBlockSymbols) emitBlock(false);
  }
  void match(uint32_t len, uint32_t dist) {
    symbols.push_back((256 + len - kMinMatch) | dist << 16);
    ++litFreq[257 + tables().lengthCode[len - kMinMatch]];
    ++distFreq[tables().distCode(dist)];
    blockBytes += len;
    if (symbols.size() >= kMaxBlockSymbols) emitBlock(false);
  }

  // Compresses [pos, end) with one step of lazy matching: a match found at
  // p is held back while the match at p + 1 is looked for, and dropped for a
  // literal when that one is longer.
  void compress() {
    size_t p = pos;
    const size_t stop = end;
    bool held = false;  // a literal or match at p - 1 waits
    uint32_t heldLen = 0, heldDist = 0;
    while (p < stop) {
      uint32_t len = 0, dist = 0;
      const size_t avail = stop - p;
      if (avail >= kMinMatch) {
        const int32_t candidate = insert(p);
        const uint32_t floor = held && heldLen >= kMinMatch ? heldLen : kMinMatch - 1;
        if (candidate >= 0 && !(held && heldLen >= kMaxLazy)) {
          const uint32_t limit = static_cast<uint32_t>(std::min<size_t>(kMaxMatch, avail));
          len = longestMatch(candidate, p, limit, floor, dist);
          if (len <= floor || (len == kMinMatch && dist > kTooFar)) len = 0;
        }
      }
      if (held && heldLen >= kMinMatch && len == 0) {
        // The held match wins: it covers p - 1 .. p + heldLen - 2.
        match(heldLen, heldDist);
        const size_t next = p - 1 + heldLen;
        for (size_t q = p + 1; q < next && stop - q >= kMinMatch; ++q) insert(q);
        p = next;
        held = false;
        continue;
      }
      if (held) literal(buffer[p - 1]);
      held = true;
      heldLen = len;
      heldDist = dist;
      ++p;
    }
    if (held) literal(buffer[p - 1]);
    pos = stop;
  }

  // Keeps the last 32 KiB of input as the window and makes room after it.
  void slide() {
    const size_t shift = end - kWindow;
    std::memmove(buffer.data(), buffer.data() + shift, kWindow);
    pos -= shift;
    end -= shift;
    const auto s = static_cast<int64_t>(shift);
    for (auto* table : {&head, &prev})
      for (int32_t& v : *table) v = v < s ? -1 : static_cast<int32_t>(v - s);
  }

  // ---- Blocks -------------------------------------------------------------------

  // Sends the gathered symbols (and an end of block) as the smallest of a
  // stored, fixed-code or dynamic-code block.
  void emitBlock(bool last) {
    const Tables& t = tables();
    litFreq[kEndOfBlock] = 1;

    uint8_t litLen[kLitLenCodes];
    uint8_t distLen[kDistCodes];
    buildLengths(litFreq, kLitLenCodes, 15, litLen);
    buildLengths(distFreq, kDistCodes, 15, distLen);
    int hlit = kLitLenCodes;
    while (hlit > 257 && litLen[hlit - 1] == 0) --hlit;
    int hdist = kDistCodes;
    while (hdist > 1 && distLen[hdist - 1] == 0) --hdist;

    // The code lengths, run-length coded: (symbol, extra bits value).
    std::vector<std::pair<uint8_t, uint8_t>> runs;
    {
      std::vector<uint8_t> seq(litLen, litLen + hlit);
      seq.insert(seq.end(), distLen, distLen + hdist);
      for (size_t i = 0; i < seq.size();) {
        const uint8_t v = seq[i];
        size_t run = 1;
        while (i + run < seq.size() && seq[i + run] == v) ++run;
        i += run;
        if (v == 0) {
          for (; run >= 11; run -= std::min<size_t>(run, 138))
            runs.emplace_back(18, static_cast<uint8_t>(std::min<size_t>(run, 138) - 11));
          if (run >= 3) {
            runs.emplace_back(17, static_cast<uint8_t>(run - 3));
            run = 0;
          }
        } else {
          runs.emplace_back(v, 0);
          --run;
          for (; run >= 3; run -= std::min<size_t>(run, 6))
            runs.emplace_back(16, static_cast<uint8_t>(std::min<size_t>(run, 6) - 3));
        }
        for (; run > 0; --run) runs.emplace_back(v, 0);
      }
    }
    uint32_t clFreq[kCodeLengthCodes] = {};
    for (const auto& r : runs) ++clFreq[r.first];
    uint8_t clLen[kCodeLengthCodes];
    buildLengths(clFreq, kCodeLengthCodes, 7, clLen);
    int hclen = kCodeLengthCodes;
    while (hclen > 4 && clLen[kCodeLengthOrder[hclen - 1]] == 0) --hclen;

    // Sizes in bits of the three ways to send the block.
    uint64_t extra = 0;
    for (int c = 0; c < 29; ++c) extra += uint64_t{litFreq[257 + c]} * kLengthExtra[c];
    for (int c = 0; c < kDistCodes; ++c) extra += uint64_t{distFreq[c]} * kDistExtra[c];
    uint64_t fixedBits = 3 + extra, dynamicBits = 3 + 14 + 3 * uint64_t(hclen) + extra;
    for (int c = 0; c < kLitLenCodes; ++c) {
      fixedBits += uint64_t{litFreq[c]} * t.fixedLitLen[c];
      dynamicBits += uint64_t{litFreq[c]} * litLen[c];
    }
    for (int c = 0; c < kDistCodes; ++c) {
      fixedBits += uint64_t{distFreq[c]} * 5;
      dynamicBits += uint64_t{distFreq[c]} * distLen[c];
    }
    for (int c = 0; c < kCodeLengthCodes; ++c) dynamicBits += uint64_t{clFreq[c]} * clLen[c];
    dynamicBits += uint64_t{clFreq[16]} * 2 + uint64_t{clFreq[17]} * 3 + uint64_t{clFreq[18]} * 7;
    const uint64_t storedChunks = std::max<uint64_t>(1, (blockBytes + 65534) / 65535);
    const uint64_t storedBits = uint64_t{blockBytes} * 8 + storedChunks * (3 + 7 + 32);

    if (storedBits <= fixedBits && storedBits <= dynamicBits) {
      emitStored(last);
    } else if (fixedBits <= dynamicBits) {
      putBits(last ? 1 : 0, 1);
      putBits(1, 2);
      emitSymbols(t.fixedLitCode, t.fixedLitLen, t.fixedDistCode, t.fixedDistLen);
    } else {
      putBits(last ? 1 : 0, 1);
      putBits(2, 2);
      putBits(static_cast<uint32_t>(hlit - 257), 5);
      putBits(static_cast<uint32_t>(hdist - 1), 5);
      putBits(static_cast<uint32_t>(hclen - 4), 4);
      for (int i = 0; i < hclen; ++i) putBits(clLen[kCodeLengthOrder[i]], 3);
      uint16_t clCode[kCodeLengthCodes];
      canonicalCodes(clLen, clCode);
      for (const auto& [symbol, value] : runs) {
        putBits(clCode[symbol], clLen[symbol]);
        if (symbol == 16) putBits(value, 2);
        else if (symbol == 17) putBits(value, 3);
        else if (symbol == 18) putBits(value, 7);
      }
      uint16_t litCode[kLitLenCodes];
      uint16_t distCode[kDistCodes];
      canonicalCodes(litLen, litCode);
      canonicalCodes(distLen, distCode);
      emitSymbols(litCode, litLen, distCode, distLen);
    }

    symbols.clear();
    std::fill(std::begin(litFreq), std::end(litFreq), 0u);
    std::fill(std::begin(distFreq), std::end(distFreq), 0u);
    blockStart += blockBytes;
    blockBytes = 0;
  }

  void emitSymbols(const uint16_t* litCode, const uint8_t* litLen, const uint16_t* distCode,
                   const uint8_t* distLen) {
    const Tables& t = tables();
    for (const uint32_t s : symbols) {
      const uint32_t ll = s & 0xffff;
      if (ll < 256) {
        putBits(litCode[ll], litLen[ll]);
        continue;
      }
      const uint32_t len = ll - 256 + kMinMatch;
      const uint32_t lc = t.lengthCode[len - kMinMatch];
      putBits(litCode[257 + lc], litLen[257 + lc]);
      if (kLengthExtra[lc]) putBits(len - kLengthBase[lc], kLengthExtra[lc]);
      const uint32_t dist = s >> 16;
      const uint32_t dc = t.distCode(dist);
      putBits(distCode[dc], distLen[dc]);
      if (kDistExtra[dc]) putBits(dist - kDistBase[dc], kDistExtra[dc]);
    }
    putBits(litCode[kEndOfBlock], litLen[kEndOfBlock]);
  }

  // The block's input as it is, in pieces of at most 65535 bytes.
  void emitStored(bool last) {
    size_t at = blockStart;
    size_t left = blockBytes;
    do {
      const size_t n = std::min<size_t>(left, 65535);
      left -= n;
      putBits(last && left == 0 ? 1 : 0, 1);
      putBits(0, 2);
      alignToByte();
      const uint8_t header[4] = {static_cast<uint8_t>(n), static_cast<uint8_t>(n >> 8),
                                 static_cast<uint8_t>(~n), static_cast<uint8_t>(~n >> 8)};
      out.insert(out.end(), header, header + 4);
      out.insert(out.end(), buffer.begin() + static_cast<std::ptrdiff_t>(at),
                 buffer.begin() + static_cast<std::ptrdiff_t>(at + n));
      at += n;
    } while (left > 0);
  }

  // Compresses everything waiting and sends it as complete blocks.
  void compressWaiting(bool last) {
    blockStart = pos;
    compress();
    if (last || !symbols.empty()) emitBlock(last);
  }
};

DeflateEncoder::DeflateEncoder() : state_(std::make_unique<State>()) {}
DeflateEncoder::~DeflateEncoder() = default;

void DeflateEncoder::write(const void* data, size_t size) {
  State& s = *state_;
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    if (s.end == kBufferBytes) {
      s.compressWaiting(false);
      s.slide();
    }
    const size_t n = std::min(size, kBufferBytes - s.end);
    std::memcpy(&s.buffer[s.end], p, n);
    s.end += n;
    p += n;
    size -= n;
  }
}

void DeflateEncoder::finish() {
  State& s = *state_;
  if (s.finished) return;
  s.compressWaiting(true);
  s.alignToByte();
  s.finished = true;
}

bool DeflateEncoder::finished() const { return state_->finished; }

std::vector<uint8_t>& DeflateEncoder::output() { return state_->out; }

std::vector<uint8_t> deflateBytes(const void* data, size_t size) {
  DeflateEncoder encoder;
  encoder.write(data, size);
  encoder.finish();
  return std::move(encoder.output());
}

}  // namespace cuptitrace
