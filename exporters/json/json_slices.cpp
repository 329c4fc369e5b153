#include "exporters/json/json_slices.h"

#include "timeline/openacc_nesting.h"
#include "timeline/record_args.h"
#include "timeline/slice_categories.h"
#include "timeline/torch_ops.h"

namespace cuptitrace {

void JsonSlices::writeTrack(JsonTrack& t, const Slice* first, const Slice* last) {
  for (const Slice* s = first; s != last; ++s) {
    if (s->lane > t.lanePrefixes.size()) t.addLanes(s->lane);
    write(*s, t);
  }
}

void JsonSlices::write(const Slice& s, const JsonTrack& t) {
  switch (s.source) {
    case SliceSource::ApiRuntime:
    case SliceSource::ApiDriver:
      return writeApi(s, t);
    case SliceSource::Nvtx:
      return writeNvtxRange(s, t);
    case SliceSource::Graph:
      return writeGraph(s, t);
    case SliceSource::Kernel:
      return writeKernel(s, t);
    case SliceSource::Memcpy:
      return writeMemcpy(s, t);
    case SliceSource::Memset:
      return writeMemset(s, t);
    case SliceSource::Sync:
      return writeSync(s, t);
    case SliceSource::Overhead:
      return writeOverhead(s, t);
    case SliceSource::OpenAcc:
      return writeOpenAcc(s, t);
  }
}

void JsonSlices::beginSlice(std::string_view category) {
  e_.begin();
  b_.lit("\"ph\":\"X\",\"cat\":\"");
  b_.put(category);
  b_.lit("\",\"name\":");
}
void JsonSlices::sliceTimes(const JsonTrack& t, const Slice& s) {
  b_.put(',');
  b_.put(t.prefixOfLane(s.lane));
  b_.lit(",\"ts\":");
  b_.micros(static_cast<int64_t>(s.start - base_));
  b_.lit(",\"dur\":");
  b_.micros(static_cast<int64_t>(s.end - s.start));
}

// An OpenACC event on the thread that made it, and an arrow to each GPU
// slice its CUDA calls launched (json_flows.h).
void JsonSlices::writeOpenAcc(const Slice& s, const JsonTrack& t) {
  const OpenAccRecord& r = rec_.openacc[s.index];
  JsonText name;
  name.quoted(openAccEventLabel(r, trace_.strings));
  beginSlice(categoryName(kCatOpenAcc), name.view(), t, s);
  argsAndEnd(s, r.start, r.end, [&](JsonArgs::Sink& a) { openAccArgs(r, a); });
  flows_.openAccOut(r, t, s);
}

// A whole graph launch (CUPTITRACE_GRAPHS=graph), with the arrow from its cudaGraphLaunch.
void JsonSlices::writeGraph(const Slice& s, const JsonTrack& t) {
  const GraphRecord& g = rec_.graphs[s.index];
  beginSlice(categoryName(kCatGraph));
  b_.lit("\"Graph ");
  b_.uint(g.graphId);
  b_.put('"');
  sliceTimes(t, s);
  flows_.in(g, s.index);
  argsAndEnd(s, g.start, g.end, [&](JsonArgs::Sink& a) { graphLaunchArgs(g, a); });
  flows_.openAccIn(g.correlationId, t, s);
}

void JsonSlices::writeApi(const Slice& s, const JsonTrack& t) {
  const ApiRecord& r = rec_.api[s.index];
  if (isOsrtCall(r)) {  // a C library call that blocked the thread (the osrt activity)
    beginSlice(categoryName(kCatOsrt), strings_.quoted(r.name), t, s);
  } else {
    beginSlice(categoryName(isDriverCall(r) ? kCatDriver : kCatRuntime), strings_.quoted(r.name), t, s);
    flows_.out(s.index, r);
  }
  argsAndEnd(s, r.start, r.end, [&](JsonArgs::Sink& a) { apiArgs(r, a); });
}

void JsonSlices::writeKernel(const Slice& s, const JsonTrack& t) {
  const KernelRecord& k = rec_.kernels[s.index];
  beginSlice(categoryName(kCatKernel), strings_.quotedKernelName(k.name), t, s);
  flows_.in(k, s.index);
  argsAndEnd(s, k.start, k.end, [&](JsonArgs::Sink& a) { kernelArgs(k, a); });
  flows_.openAccIn(k.correlationId, t, s);
}

void JsonSlices::writeMemcpy(const Slice& s, const JsonTrack& t) {
  const MemcpyRecord& m = rec_.memcpys[s.index];
  // "Memcpy HtoD (Pinned -> Device)": names of our own, nothing to escape.
  beginSlice(categoryName(kCatMemcpy));
  b_.lit("\"Memcpy ");
  b_.put(copyKindName(static_cast<CopyKind>(m.copyKind)));
  b_.lit(" (");
  b_.put(memoryKindName(static_cast<MemoryKind>(m.srcKind)));
  b_.lit(" -> ");
  b_.put(memoryKindName(static_cast<MemoryKind>(m.dstKind)));
  b_.lit(")\"");
  sliceTimes(t, s);
  flows_.in(m, s.index);
  argsAndEnd(s, m.start, m.end, [&](JsonArgs::Sink& a) { memcpyArgs(m, a); });
  flows_.openAccIn(m.correlationId, t, s);
}

void JsonSlices::writeMemset(const Slice& s, const JsonTrack& t) {
  const MemsetRecord& m = rec_.memsets[s.index];
  beginSlice(categoryName(kCatMemset));
  b_.lit("\"Memset (");
  b_.put(memoryKindName(static_cast<MemoryKind>(m.memoryKind)));
  b_.lit(")\"");
  sliceTimes(t, s);
  flows_.in(m, s.index);
  argsAndEnd(s, m.start, m.end, [&](JsonArgs::Sink& a) { memsetArgs(m, a); });
  flows_.openAccIn(m.correlationId, t, s);
}

void JsonSlices::writeSync(const Slice& s, const JsonTrack& t) {
  const SyncRecord& r = rec_.syncs[s.index];
  beginSlice(categoryName(kCatSync));
  b_.put('"');
  b_.put(syncTypeName(static_cast<SyncType>(r.type)));
  b_.put('"');
  sliceTimes(t, s);
  argsAndEnd(s, r.start, r.end, [&](JsonArgs::Sink& a) { syncArgs(r, a); });
}

void JsonSlices::writeOverhead(const Slice& s, const JsonTrack& t) {
  const OverheadRecord& r = rec_.overheads[s.index];
  beginSlice(categoryName(kCatOverhead), strings_.quoted(r.name), t, s);
  argsAndEnd(s, r.start, r.end, [&](JsonArgs::Sink& a) { overheadArgs(r, a); });
}

// A range of the program's own; an operator or step of PyTorch's (torch_ops.h)
// as the PyTorch profiler writes it: "cpu_op" or "user_annotation", named
// without what PyTorch appends ("aten::addmm"), which goes into its arguments.
void JsonSlices::writeNvtxRange(const Slice& s, const JsonTrack& t) {
  const NvtxRecord& r = rec_.nvtx[s.index];
  const RangeRole role = torch_.role(r);
  if (role == RangeRole::None) {
    beginSlice(categoryName(kCatNvtx), strings_.quoted(r.message), t, s);
    argsAndEnd(s, r.start, r.end, [&](JsonArgs::Sink& a) { nvtxArgs(r, true, a); });
    return;
  }
  const TorchRange op = torch_.parsed(r.message);
  JsonText name;
  name.quoted(op.name);
  beginSlice(categoryName(rangeCategory(role)), name.view(), t, s);
  argsAndEnd(s, r.start, r.end, [&](JsonArgs::Sink& a) {
    nvtxArgs(r, true, a);
    torchOpArgs(op, a);
  });
}

}  // namespace cuptitrace
