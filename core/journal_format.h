// The spill journal's file layout, shared by its writer (a store spilling past
// its memory cap) and its reader (`cuptitrace recover`).
//
// A process that dies by SIGKILL or _exit() runs none of our code, so the file
// must describe itself: what the trace is about, the strings records name, and
// the records, in blocks that each say their length and checksum, so that what
// reached the disk is used and a torn tail is recognised and left out.
//
// Layout (all integers little-endian, like the native format):
//
//   "CTJOURNL"            8 bytes of magic
//   uint32 version        kJournalVersion
//   uint32 reserved       0
//   blocks, each at a multiple of 16 bytes from the start:
//     uint32 type         JournalBlock
//     uint32 length       payload bytes; the payload is zero-padded to a multiple of 16
//     uint32 payloadCrc   CRC-32C of the payload (length bytes)
//     uint32 headerCrc    CRC-32C of the 12 bytes before it
//     payload
//
//   METADATA (1)  tool version, host, pid, program, command line, clock, base
//                 timestamp, start realtime, start timestamp, CUPTI version,
//                 driver version, then the configuration pairs (the order of the
//                 native format's METADATA section)
//   STRINGS  (2)  uint32 first id, uint32 count, count x (uint32 length, bytes):
//                 ids first, first+1, ...; written before any chunk naming them
//   CHUNK    (3)  uint8 kind, 3 zero bytes, uint32 sizeof(record), uint32 slot
//                 (the chunk's index within its kind), uint32 count, raw records
//   INFO     (4)  devices, contexts, stream/thread/device/context names (the native
//                 METADATA encoding of them); the latest one counts
//   DEAD     (5)  a CHUNK whose records left the trace (filtered out); only its
//                 header is rewritten, in place. The slot's earlier versions
//                 (TAIL blocks before it) are gone with it.
//   PAD      (6)  skipped; keeps a chunk inside one mapped segment
//   TAIL     (7)  uint8 kind, 3 zero bytes, uint32 sizeof(record), uint32 slot,
//                 uint32 first, uint32 count, 4 zero bytes, raw records: records
//                 [first, first + count) of a chunk still filling. From `first`
//                 on, the slot holds these (what it had past them is gone);
//                 first 0 and count 0 empties it (it left the trace). Written
//                 now and then (CUPTITRACE_JOURNAL_PERIOD) with only what was
//                 added since the last one, so a killed process leaves its
//                 last records too; a later CHUNK of the slot replaces them.
//
// A slot's versions follow file order: a CHUNK replaces what the slot had, a
// TAIL replaces it from `first` on (ignored when `first` is past what the
// slot holds: a version before it was lost), a DEAD empties it.
//
// Chunks are the only blocks rewritten in place (the store filtering records
// after they were spilled): payload first, then the header with the new
// checksum. A reader that finds a chunk whose payload does not match its
// checksum skips that chunk and goes on; any other block that does not check
// out ends the readable part (a torn tail).
//
// TAIL came after version 1 was first written, without a new version: a
// reader that predates it skips the blocks (it gets the full chunks only, as
// before), and journals without them read as they always did.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/binary_io.h"

namespace cuptitrace::journal {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the spill journal is little-endian");

inline constexpr char kMagic[8] = {'C', 'T', 'J', 'O', 'U', 'R', 'N', 'L'};
inline constexpr uint32_t kJournalVersion = 1;
inline constexpr uint64_t kFileHeaderBytes = 16;
inline constexpr uint64_t kBlockHeaderBytes = 16;
inline constexpr uint64_t kChunkHeaderBytes = 16;  // kind, pad, record size, slot, count
inline constexpr uint64_t kAlign = 16;
// Chunks are read back through read-only mappings of this many bytes each; a
// chunk never straddles two (a PAD block moves it to the next).
inline constexpr uint64_t kSegmentBytes = uint64_t{256} << 20;

enum class Block : uint32_t { Metadata = 1, Strings = 2, Chunk = 3, Info = 4, Dead = 5, Pad = 6, Tail = 7 };

struct BlockHeader {
  uint32_t type;
  uint32_t length;
  uint32_t payloadCrc;
  uint32_t headerCrc;
};
static_assert(sizeof(BlockHeader) == kBlockHeaderBytes);

struct ChunkHeader {
  uint8_t kind;
  uint8_t reserved[3];
  uint32_t recordSize;
  uint32_t slot;
  uint32_t count;
};
static_assert(sizeof(ChunkHeader) == kChunkHeaderBytes);

struct TailHeader {
  uint8_t kind;
  uint8_t reserved[3];
  uint32_t recordSize;
  uint32_t slot;
  uint32_t first;
  uint32_t count;
  uint32_t reserved2;
};
inline constexpr uint64_t kTailHeaderBytes = 24;
static_assert(sizeof(TailHeader) == kTailHeaderBytes);

inline constexpr uint64_t alignUp(uint64_t n) { return (n + kAlign - 1) & ~(kAlign - 1); }

// CRC-32C (Castagnoli); `crc` continues an earlier value (0 to start).
uint32_t crc32c(const void* data, size_t n, uint32_t crc = 0);

// A header for a payload of `length` bytes with checksum `payloadCrc`.
BlockHeader makeHeader(Block type, uint32_t length, uint32_t payloadCrc);
bool headerValid(const BlockHeader& h);

// The native format's encoding (binary_io.h).
using Writer = binary_io::ByteWriter;
using Reader = binary_io::ByteReader;

}  // namespace cuptitrace::journal
