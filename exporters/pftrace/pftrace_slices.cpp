#include "exporters/pftrace/pftrace_slices.h"

#include <string>
#include <string_view>

#include "timeline/openacc_nesting.h"
#include "timeline/record_args.h"

namespace cuptitrace::pftrace {

SliceWriter::SliceWriter(const Trace& trace, const TimelineRecords& rec, Interner& interner,
                         EventEncoder& events, const FlowWriter& flows,
                         const ExternalIdIndex& externalIds)
    : trace_(trace),
      rec_(rec),
      interner_(interner),
      ev_(events),
      flows_(flows),
      externalIds_(externalIds),
      nccl_(trace),
      torch_(trace) {}

// A record's arguments (record_args.h) as debug annotations.
struct SliceWriter::ArgSink {
  SliceWriter& w;
  void u(Arg a, uint64_t v) { w.ev_.argUint(a, v); }
  void i(Arg a, int64_t v) { w.ev_.argInt(a, v); }
  void b(Arg a, bool v) { w.ev_.argBool(a, v); }
  void real(Arg a, double v, int) { w.ev_.argDouble(a, v); }
  void single(Arg a, float v) { w.ev_.argDouble(a, v); }
  void string(Arg a, StringId id) { w.ev_.argStringIid(a, w.interner_.stringValueIid(id)); }
  void text(Arg a, std::string_view v) {
    w.ev_.argStringIid(a, w.interner_.textValueIid(std::string(v)));
  }
  void label(Arg a, Label l, uint8_t code, const char* name) {
    w.ev_.argStringIid(a, w.interner_.labelIid(l, code, name));
  }
  void dim3(Arg a, int64_t x, int64_t y, int64_t z) {
    w.ev_.argStringIid(a, w.interner_.dim3Iid(a, x, y, z));
  }
  void nccl(StringId kernelName) {
    if (const NcclKernelInfo* c = w.nccl_.find(kernelName)) w.ncclArgs(*c);
  }
  void externalIds(uint32_t correlationId) { w.externalIdArgs(correlationId); }
  void where(Arg, uint64_t) {}  // the slice's track says it
  void json(Arg a, std::string_view v) { text(a, v); }
};

// A slice begin's fields after its category: its arguments (record_args.h),
// how much the layout cut off it, its type and its name.
template <typename Record, typename Describe>
void SliceWriter::sliceFields(const Slice& s, const Record& r, uint32_t name, Describe&& describe) {
  ArgSink sink{*this};
  describe(sink);
  ev_.clampArg(s, r.start, r.end);
  ev_.head(kSliceBegin, name);
}

// An NCCL kernel's collective, as its name says (core/nccl_kernel.h): the
// parts it leaves out are left out.
void SliceWriter::ncclArgs(const NcclKernelInfo& c) {
  auto part = [&](Arg a, const std::string& text) {
    if (text.empty()) return;
    ev_.argStringIid(a, interner_.ncclValueIid(text));
  };
  part(Arg::NcclCollective, c.collective);
  part(Arg::NcclOp, c.op);
  part(Arg::NcclDtype, c.dtype);
  part(Arg::NcclAlgo, c.algo);
  part(Arg::NcclProto, c.proto);
}

// What the program had pushed (cuptitrace.h) when the call was made.
void SliceWriter::externalIdArgs(uint32_t correlationId) {
  const ExternalIdEntry* e = externalIds_.find(correlationId);
  if (e == nullptr) return;
  if (e->hasId) ev_.argUint(Arg::ExternalId, e->id);
  if (e->hasScope) {
    ev_.argStringIid(Arg::Scope, interner_.stringValueIid(e->scopeName));
    ev_.argUint(Arg::ScopeId, e->scopeId);
  }
  if (e->python != kNoString) ev_.argStringIid(Arg::Python, interner_.stringValueIid(e->python));
}

void SliceWriter::writeBegin(const Slice& s, size_t slot) {
  switch (s.source) {
    case SliceSource::ApiRuntime:
    case SliceSource::ApiDriver:
      return writeApi(s, slot);
    case SliceSource::Nvtx:
      return writeNvtxRange(s);
    case SliceSource::Kernel:
      return writeKernel(s, slot);
    case SliceSource::Memcpy:
      return writeMemcpy(s, slot);
    case SliceSource::Memset:
      return writeMemset(s, slot);
    case SliceSource::Graph:
      return writeGraph(s, slot);
    case SliceSource::Sync:
      return writeSync(s);
    case SliceSource::Overhead:
      return writeOverhead(s);
    case SliceSource::OpenAcc:
      return writeOpenAcc(s);
  }
}

// An OpenACC event on the thread that made it; it starts a flow to each GPU
// slice its CUDA calls launched (openacc_flows.h), which those end.
void SliceWriter::writeOpenAcc(const Slice& s) {
  const OpenAccRecord& r = rec_.openacc[s.index];
  ev_.begin(kCatOpenAcc);
  const uint32_t name = interner_.labelNameIid(openAccEventLabel(r, trace_.strings));
  sliceFields(s, r, name, [&](ArgSink& a) { openAccArgs(r, a); });
  flows_.startOpenAccFlows(ev_, r.externalId);
  ev_.finish(s.start);
}

void SliceWriter::writeApi(const Slice& s, size_t slot) {
  const ApiRecord& r = rec_.api[s.index];
  // A C library call that blocked the thread: the osrt activity.
  ev_.begin(isOsrtCall(r) ? kCatOsrt : isDriverCall(r) ? kCatDriver : kCatRuntime);
  const uint32_t name = interner_.rawNameIid(r.name);
  sliceFields(s, r, name, [&](ArgSink& a) { apiArgs(r, a); });
  flows_.startFlows(ev_, slot, r);  // none from C library calls: they have no id
  ev_.finish(s.start);
}

void SliceWriter::writeKernel(const Slice& s, size_t slot) {
  const KernelRecord& k = rec_.kernels[s.index];
  ev_.begin(kCatKernel);
  const uint32_t name = interner_.kernelNameIid(k.name);
  sliceFields(s, k, name, [&](ArgSink& a) { kernelArgs(k, a); });
  flows_.endFlows(ev_, slot, flows_.correlation(k, s.index));
  ev_.finish(s.start);
}

// A whole graph launch (CUPTITRACE_GRAPHS=graph), the arrow from its cudaGraphLaunch.
void SliceWriter::writeGraph(const Slice& s, size_t slot) {
  const GraphRecord& g = rec_.graphs[s.index];
  ev_.begin(kCatGraph);
  // Names of their own above the composed ones' keys (all below 2^26).
  const uint32_t name = interner_.composedNameIid(
      (4u << 24) + g.graphId, [&] { return "Graph " + std::to_string(g.graphId); });
  sliceFields(s, g, name, [&](ArgSink& a) { graphLaunchArgs(g, a); });
  flows_.endFlows(ev_, slot, flows_.correlation(g, s.index));
  ev_.finish(s.start);
}

void SliceWriter::writeMemcpy(const Slice& s, size_t slot) {
  const MemcpyRecord& m = rec_.memcpys[s.index];
  const uint32_t key = uint32_t{m.copyKind} << 16 | uint32_t{m.srcKind} << 8 | m.dstKind;
  ev_.begin(kCatMemcpy);
  const uint32_t name = interner_.composedNameIid(key, [&] {
    return std::string("Memcpy ") + copyKindName(static_cast<CopyKind>(m.copyKind)) + " (" +
           memoryKindName(static_cast<MemoryKind>(m.srcKind)) + " -> " +
           memoryKindName(static_cast<MemoryKind>(m.dstKind)) + ")";
  });
  sliceFields(s, m, name, [&](ArgSink& a) { memcpyArgs(m, a); });
  flows_.endFlows(ev_, slot, flows_.correlation(m, s.index));
  ev_.finish(s.start);
}

void SliceWriter::writeMemset(const Slice& s, size_t slot) {
  const MemsetRecord& m = rec_.memsets[s.index];
  ev_.begin(kCatMemset);
  const uint32_t name = interner_.composedNameIid(1u << 24 | m.memoryKind, [&] {
    return std::string("Memset (") + memoryKindName(static_cast<MemoryKind>(m.memoryKind)) + ")";
  });
  sliceFields(s, m, name, [&](ArgSink& a) { memsetArgs(m, a); });
  flows_.endFlows(ev_, slot, flows_.correlation(m, s.index));
  ev_.finish(s.start);
}

void SliceWriter::writeSync(const Slice& s) {
  const SyncRecord& r = rec_.syncs[s.index];
  ev_.begin(kCatSync);
  const uint32_t name = interner_.composedNameIid(
      2u << 24 | r.type, [&] { return std::string(syncTypeName(static_cast<SyncType>(r.type))); });
  sliceFields(s, r, name, [&](ArgSink& a) { syncArgs(r, a); });
  ev_.finish(s.start);
}

void SliceWriter::writeOverhead(const Slice& s) {
  const OverheadRecord& r = rec_.overheads[s.index];
  ev_.begin(kCatOverhead);
  const uint32_t name = interner_.rawNameIid(r.name);
  sliceFields(s, r, name, [&](ArgSink& a) { overheadArgs(r, a); });
  ev_.finish(s.start);
}

// Push/pop ranges on their thread; start/end ranges on their lane.
// PyTorch's operators and steps (torch_ops.h) in the PyTorch profiler's
// categories, named without what PyTorch appends, as in the JSON.
void SliceWriter::writeNvtxRange(const Slice& s) {
  const NvtxRecord& r = rec_.nvtx[s.index];
  const RangeRole role = torch_.role(r);
  if (role == RangeRole::None) {
    ev_.begin(kCatNvtx);
    const uint32_t name = interner_.rawNameIid(r.message);
    sliceFields(s, r, name, [&](ArgSink& a) { nvtxArgs(r, true, a); });
    ev_.finish(s.start);
    return;
  }
  const TorchRange op = torch_.parsed(r.message);
  ev_.begin(rangeCategory(role));
  const uint32_t name = interner_.labelNameIid(std::string(op.name));
  sliceFields(s, r, name, [&](ArgSink& a) {
    nvtxArgs(r, true, a);
    torchOpArgs(op, a);
  });
  ev_.finish(s.start);
}

void SliceWriter::writeInstant(const Instant& i) {
  const NvtxRecord& r = rec_.nvtx[i.nvtx];
  ev_.begin(kCatNvtx);
  const uint32_t name = interner_.rawNameIid(r.message);
  ArgSink sink{*this};
  nvtxArgs(r, false, sink);
  ev_.head(kInstant, name);
  ev_.finish(i.ts);
}

}  // namespace cuptitrace::pftrace
