// The .pftrace writer's events of each record kind: a slice's begin (its
// category, name, arguments and arrows) and an NVTX instant.
//
// Arguments. A slice carries what a user filters on, minus what its track
// already says: GPU work does not repeat its device, context and stream
// (the GPU process and stream track are theirs), and a synchronization its
// context. Kernels: correlation, grid, block, registers (per thread),
// static_smem, dynamic_smem (shared memory bytes), graph ids, launch_type
// (only when not Regular), device_launched (only when set), and for NCCL's
// kernels nccl_collective, nccl_op, nccl_dtype, nccl_algo, nccl_proto (those
// the name says: core/nccl_kernel.h); the mangled name is the CSV's (the
// slice is named by the demangled one). API calls: correlation and
// return_value (only when not 0: success); the domain is the category and
// the callback id is the call's name. Copies and sets as in the JSON, which
// carries the same arguments: each kind's are listed once, in
// record_args.h, and written here through a sink of debug annotations.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/trace.h"
#include "timeline/external_ids.h"
#include "timeline/nccl_names.h"
#include "exporters/pftrace/pftrace_events.h"
#include "exporters/pftrace/pftrace_flows.h"
#include "exporters/pftrace/pftrace_interning.h"
#include "exporters/pftrace/pftrace_tracks.h"
#include "timeline/timeline_slices.h"
#include "timeline/torch_ops.h"

namespace cuptitrace::pftrace {

class SliceWriter {
 public:
  // `externalIds` is shared by the writers of every thread.
  SliceWriter(const Trace& trace, const TimelineRecords& rec, Interner& interner,
              EventEncoder& events, const FlowWriter& flows, const ExternalIdIndex& externalIds);

  // The SLICE_BEGIN of `s`, at `slot` of the window laid out, on the lane
  // the encoder was given.
  void writeBegin(const Slice& s, size_t slot);
  // Marks on their thread; empty start/end ranges on their lane.
  void writeInstant(const Instant& i);

 private:
  struct ArgSink;
  template <typename Record, typename Describe>
  void sliceFields(const Slice& s, const Record& r, uint32_t name, Describe&& describe);

  void writeApi(const Slice& s, size_t slot);
  void writeKernel(const Slice& s, size_t slot);
  void writeGraph(const Slice& s, size_t slot);
  void writeMemcpy(const Slice& s, size_t slot);
  void writeMemset(const Slice& s, size_t slot);
  void writeSync(const Slice& s);
  void writeOverhead(const Slice& s);
  void writeNvtxRange(const Slice& s);
  void writeOpenAcc(const Slice& s);
  void ncclArgs(const NcclKernelInfo& c);
  void externalIdArgs(uint32_t correlationId);

  const Trace& trace_;
  const TimelineRecords rec_;
  Interner& interner_;
  EventEncoder& ev_;
  const FlowWriter& flows_;
  const ExternalIdIndex& externalIds_;
  NcclNames nccl_;  // which kernels are NCCL's collectives
  TorchRanges torch_;  // which NVTX ranges are PyTorch's operators and steps
};

}  // namespace cuptitrace::pftrace
