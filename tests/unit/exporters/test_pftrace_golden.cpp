// The exact bytes the .pftrace exporter writes for a tiny trace.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "core/trace.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "pftrace_readback.h"
#include "proto_reader.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::pftrace;
using cuptitrace::testing::proto::fromHex;
using cuptitrace::testing::proto::toHex;

// Exact bytes of a tiny trace: one kernel on stream 2 of GPU 0 in process 7,
// written out by hand from the field numbers of PERFETTO.md and Perfetto's protos. Each packet is
// `0a <length>` (Trace.packet = 1); a tag is (field << 3) | wire type.
TEST_CASE("pftrace: golden bytes of a one-kernel trace", "[pftrace]") {
  Trace t;
  t.meta.pid = 7;
  t.meta.processName = "a";
  t.meta.baseTimestampNs = 1000;
  t.meta.toolVersion = "1";
  t.meta.clock = "c";
  KernelRecord k{};
  k.start = 1010;
  k.end = 1030;
  k.name = t.strings.intern("k");
  k.correlationId = 5;  // no launch call recorded: no arrow
  k.contextId = 1;
  k.streamId = 2;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = 32;
  k.blockY = k.blockZ = 1;
  k.registersPerThread = 8;
  t.store.add(k);

  // clang-format off
  const std::string expected = fromHex(
      // ---- Packet 1 (41 bytes): the main sequence (1) starts: its clock, defaults.
      "0a 29"
      "  32 19"                    // clock_snapshot (6), 25 bytes
      "    0a 07 08 40 10 e8 07 18 01"  // clocks {clock_id 64, timestamp 1000, is_incremental 1}
      "    0a 05 08 01 10 e8 07"        // clocks {clock_id 1 (REALTIME), timestamp 1000}
      "    0a 05 08 06 10 e8 07"        // clocks {clock_id 6 (BOOTTIME), timestamp 1000}: relates
                                        // the trace's clocks to Perfetto's default (PERFETTO.md)
      "    10 01"                       // primary_trace_clock REALTIME
      "  50 01"                    // trusted_packet_sequence_id (10) 1
      "  68 03"                    // sequence_flags (13) INCREMENTAL_STATE_CLEARED|NEEDS_...
      "  da 03 07"                 // trace_packet_defaults (59), 7 bytes
      "    d0 03 40"               //   timestamp_clock_id (58) 64
      "    5a 02 58 01"            //   track_event_defaults (11) {track_uuid (11) 1}
      // ---- Packet 2 (16 bytes): the host process track.
      "0a 10"
      "  40 00 50 01"              // timestamp (8) delta 0, sequence 1
      "  e2 03 09"                 // track_descriptor (60), 9 bytes
      "    08 01"                  //   uuid 1
      "    1a 05 08 07 32 01 61"   //   process (3) {pid 7, process_name (6) "a"}
      // ---- Packet 3 (26 bytes): GPU 0's process, pid (1 << 30) | (7 << 6) = 1073742272.
      "0a 1a"
      "  40 00 50 01"
      "  e2 03 13"                 // track_descriptor, 19 bytes
      "    08 02"                  //   uuid 2
      "    1a 0d 08 c0 83 80 80 04 32 05 47 50 55 20 30"  // process {pid, "GPU 0"}
      "    58 03"                  //   child_ordering (11) EXPLICIT
      // ---- Packet 4 (27 bytes): the stream's track.
      "0a 1b"
      "  40 00 50 01"
      "  e2 03 14"                 // track_descriptor, 20 bytes
      "    08 03"                  //   uuid 3
      "    58 03"                  //   child_ordering EXPLICIT: its lanes, if any, in order
      "    12 08 53 74 72 65 61 6d 20 32"  // name (2) "Stream 2"
      "    28 02"                  //   parent_uuid (5) 2
      "    60 02"                  //   sibling_order_rank (12) 2
      "    78 02"                  //   sibling_merge_behavior (15) NONE
      // ---- Packet 5 (41 bytes): the stream's sequence (2) starts; its default track is 3.
      "0a 29"
      "  32 19"
      "    0a 07 08 40 10 e8 07 18 01"
      "    0a 05 08 01 10 e8 07"
      "    0a 05 08 06 10 e8 07"
      "    10 01"
      "  50 02"
      "  68 03"
      "  da 03 07 d0 03 40 5a 02 58 03"
      // ---- Packet 6 (175 bytes): the trace's description, an instant at 1000 on the
      // host process (the main sequence's default track), the first event.
      "0a af 01"
      "  40 00 50 01"
      "  5a 26"                    // track_event (11), 38 bytes
      "    18 09"                  //   category_iids (3) 9
      "    22 05 08 24 32 01 31"   //   debug_annotations (4) {name_iid 36, string_value (6) "1"}
      "    22 05 08 25 32 01 63"   //   {37, "c"}
      "    22 04 08 26 20 00"      //   {38, int_value (4) 0}: realtime_offset_ns
      "    22 04 08 29 18 00"      //   {41, uint_value (3) 0}: dropped_records
      "    22 04 08 2a 18 00"      //   {42, 0}: incomplete_records
      "    48 03 50 01"            //   type (9) INSTANT, name_iid (10) 1
      "  62 80 01"                 // interned_data (12), 128 bytes
      "    0a 0c 08 09 12 08 6d 65 74 61 64 61 74 61"        // event_categories {9, "metadata"}
      "    12 0e 08 01 12 0a 63 75 70 74 69 74 72 61 63 65"  // event_names (2) {1, "cuptitrace"}
      "    1a 10 08 24 12 0c 74 6f 6f 6c 5f 76 65 72 73 69 6f 6e"  // debug_annotation_names (3)
      "    1a 09 08 25 12 05 63 6c 6f 63 6b"                       //   {37, "clock"}
      "    1a 16 08 26 12 12 72 65 61 6c 74 69 6d 65 5f 6f 66 66 73 65 74 5f 6e 73"
      "    1a 13 08 29 12 0f 64 72 6f 70 70 65 64 5f 72 65 63 6f 72 64 73"
      "    1a 16 08 2a 12 12 69 6e 63 6f 6d 70 6c 65 74 65 5f 72 65 63 6f 72 64 73"
      // ---- Packet 7 (189 bytes): the kernel's SLICE_BEGIN, 10 ns after the reference.
      "0a bd 01"
      "  40 0a 50 02"
      "  5a 2c"                    // track_event, 44 bytes
      "    18 01"                  //   category kernel
      "    22 04 08 04 18 05"      //   {correlation, 5}
      "    22 05 08 05 88 01 01"   //   {grid, string_value_iid (17) 1}
      "    22 05 08 06 88 01 02"   //   {block, string 2}
      "    22 04 08 07 18 08"      //   {registers, 8}
      "    22 04 08 08 20 00"      //   {static_smem, int_value (4) 0}
      "    22 04 08 09 20 00"      //   {dynamic_smem, 0}
      "    48 01 50 01"            //   SLICE_BEGIN, name_iid 1: the sequence's own iids
      "  62 88 01"                 // interned_data, 136 bytes: what sequence 2 has not seen
      "    0a 0a 08 01 12 06 6b 65 72 6e 65 6c"  // event_categories {1, "kernel"}
      "    12 05 08 01 12 01 6b"   //   event_names {1, "k"}
      "    1a 0f 08 04 12 0b 63 6f 72 72 65 6c 61 74 69 6f 6e"
      "    ea 01 0b 08 01 12 07 5b 31 2c 31 2c 31 5d"  // debug_annotation_string_values (29) {1, "[1,1,1]"}
      "    1a 08 08 05 12 04 67 72 69 64"
      "    ea 01 0c 08 02 12 08 5b 33 32 2c 31 2c 31 5d"  // {2, "[32,1,1]"}
      "    1a 09 08 06 12 05 62 6c 6f 63 6b"
      "    1a 0d 08 07 12 09 72 65 67 69 73 74 65 72 73"
      "    1a 0f 08 08 12 0b 73 74 61 74 69 63 5f 73 6d 65 6d"
      "    1a 10 08 09 12 0c 64 79 6e 61 6d 69 63 5f 73 6d 65 6d"
      // ---- Packet 8 (8 bytes): its SLICE_END, 20 ns later: no track, no flags.
      "0a 08"
      "  40 14 50 02"
      "  5a 02 48 02"              // track_event {type SLICE_END}
      // ---- Packet 9 (126 bytes): what the layout did, an instant on the host
      // process at the last event's time (1030: 30 ns after the description).
      "0a 7e"
      "  40 1e 50 01"
      "  5a 1e"                    // track_event, 30 bytes
      "    18 09"                  //   category metadata, interned already
      "    22 04 08 2b 18 00"      //   {43, 0}: clamped_slices
      "    22 04 08 39 18 01"      //   {57, 1}: max_lanes
      "    22 04 08 3a 18 00"      //   {58, 0}: lane_tracks
      "    22 04 08 2c 18 00"      //   {44, 0}: flows
      "    48 03 50 02"            //   INSTANT, name_iid 2
      "  62 58"                    // interned_data, 88 bytes
      "    12 17 08 02 12 13 63 75 70 74 69 74 72 61 63 65 20 74 69 6d 65 6c 69 6e 65"
                                   //   event_names {2, "cuptitrace timeline"}
      "    1a 12 08 2b 12 0e 63 6c 61 6d 70 65 64 5f 73 6c 69 63 65 73"
      "    1a 0d 08 39 12 09 6d 61 78 5f 6c 61 6e 65 73"              //   {57, "max_lanes"}
      "    1a 0f 08 3a 12 0b 6c 61 6e 65 5f 74 72 61 63 6b 73"        //   {58, "lane_tracks"}
      "    1a 09 08 2c 12 05 66 6c 6f 77 73");
  // clang-format on

  std::ostringstream out;
  const PerfettoExportStats stats = writePerfettoProto(t, out);
  CHECK(toHex(out.str()) == toHex(expected));
  CHECK(stats.bytes == expected.size());
  CHECK(stats.packets == 9);
  CHECK(stats.events == 4);
  const Decoded d = decode(out.str());
  INFO(problems(d));
  CHECK(d.problems.empty());
}
