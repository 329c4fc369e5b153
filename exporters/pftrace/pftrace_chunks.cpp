#include "exporters/pftrace/pftrace_chunks.h"

#include <algorithm>
#include <cstring>
#include <ostream>
#include <string>
#include <tuple>
#include <unordered_map>

#include "core/ordered_work.h"
#include "exporters/pftrace/pftrace_metadata.h"
#include "exporters/pftrace/pftrace_slices.h"

namespace cuptitrace::pftrace {

// One thread's encoders, all its own; the arrows' plan is read only.
struct WindowChunks::Worker {
  Worker(const Trace& trace, const TimelineRecords& rec, FlowWriter& flows)
      : out(nothing), interner(trace.strings), events(out, interner), slices(trace, rec, interner, events, flows) {
    out.hold = true;
    ProtoWriter().swap(out.b);  // it writes into the chunks' buffers: none of its own
    events.deferTo(&deferred);
    interner.setSequence(&sequence);
    descriptionNameIid(interner);  // as the trace's interner: the first name it has
    interner.entries().clear();
  }

  std::ostream nothing{nullptr};  // never written: the bytes stay in out.b
  Output out;
  Interner interner;
  EventEncoder events;
  SliceWriter slices;
  std::vector<DeferredFlow> deferred;
  Sequence sequence;
};

WindowChunks::WindowChunks(const Trace& trace, const TimelineRecords& rec, Interner& interner,
                           FlowWriter& flows, EventSchedule& schedule, const TrackRegistry& tracks,
                           std::vector<Sequence>& sequences, uint64_t offset, unsigned threads)
    : offset_(offset), interner_(interner), schedule_(schedule), tracks_(tracks), sequences_(sequences) {
  for (unsigned i = 0; i < threads; ++i) workers_.push_back(std::make_unique<Worker>(trace, rec, flows));
  readers_.resize(tracks.size());
}

// Slice starts sampled every this many slices of each track plan the rounds.
constexpr size_t kSampleEvery = 256;

void WindowChunks::startWindow() {
  // Round ends at the sampled starts, every so many: about the round's
  // events (two a slice) each.
  starts_.clear();
  for (size_t t = 0; t < tracks_.size(); ++t) {
    const Cursor& c = schedule_.cursor(t);
    for (size_t i = c.slice; i < c.sliceEnd; i += kSampleEvery) starts_.push_back(schedule_.slice(i).start);
  }
  std::sort(starts_.begin(), starts_.end());
  const size_t chunks = std::max<size_t>(16, kRoundChunksPerThread * workers_.size());
  const size_t every = std::max<size_t>(1, chunks * kChunkEvents / 2 / kSampleEvery);
  ends_.clear();
  for (size_t i = every; i < starts_.size(); i += every)
    if (ends_.empty() || starts_[i] > ends_.back()) ends_.push_back(starts_[i]);
  ends_.push_back(UINT64_MAX);  // the window's end
  round_ = 0;
  encode();
}

WindowChunks::~WindowChunks() = default;

// Step 1: each track's events of the round, cut into chunks; the cursors
// end past them, where the next round starts.
void WindowChunks::cut() {
  used_ = 0;
  for (size_t t = 0; t < tracks_.size(); ++t) {
    Reader& r = readers_[t];
    r = Reader{};
    r.chunk = used_;
    Cursor& c = schedule_.cursor(t);
    uint64_t lastTs = sequences_[1 + t].lastTs;
    uint64_t ts;
    uint8_t phase;
    Chunk* chunk = nullptr;
    const bool last = !moreRounds();
    while (schedule_.next(c, &ts, &phase) && (last || ts < ends_[round_])) {
      if (chunk == nullptr || chunk->events == kChunkEvents) {
        if (used_ == chunks_.size()) chunks_.emplace_back();
        chunk = &chunks_[used_++];
        chunk->track = static_cast<uint32_t>(t);
        chunk->start = c;
        chunk->lastTs = lastTs;
        chunk->events = 0;
      }
      ++chunk->events;
      schedule_.advance(c, phase);
      lastTs = ts;
    }
    r.chunkEnd = used_;
    sequences_[1 + t].lastTs = lastTs;
  }
}

void WindowChunks::encodeChunk(Worker& w, Chunk& c, bool speculative) {
  Interner& in = w.interner;
  in.clearNotes();
  in.setSpeculative(speculative);
  if (speculative) {
    const Sequence& s = sequences_[1 + c.track];  // interned at the window's start
    w.sequence.id = s.id;
    w.sequence.categories = s.categories;
    w.sequence.args = s.args;
    w.sequence.names = s.names;
    w.sequence.values = s.values;
  } else {
    w.sequence = c.sequence;
  }
  w.sequence.lastTs = c.lastTs;
  in.setSequence(&w.sequence);
  // Into the chunk's own buffers, which keep their room from window to window.
  w.out.b.swap(c.bytes);
  w.out.b.clear();
  w.out.b.reserve(size_t{c.events} * 64);
  w.deferred.swap(c.flows);
  w.deferred.clear();
  w.deferred.reserve(c.events);
  c.packets.clear();
  c.packets.reserve(c.events);
  Cursor cursor = c.start;
  uint64_t ts;
  uint8_t phase;
  for (uint32_t i = 0; i < c.events && schedule_.next(cursor, &ts, &phase); ++i) {
    in.setEvent(i);
    const size_t flows = w.deferred.size();
    writeEvent(cursor, c.track, phase, schedule_, tracks_, w.events, w.slices);
    c.packets.push_back(PacketRef{ts, static_cast<uint32_t>(w.out.b.size()), phase, w.deferred.size() != flows});
  }
  c.bytes.swap(w.out.b);
  c.flows.swap(w.deferred);
  in.dropProvisional();
  c.newKeys.swap(in.newKeys());
  c.uses.swap(in.uses());
  in.clearNotes();
  in.setSpeculative(false);
}

void WindowChunks::run(const std::vector<uint32_t>& which, bool speculative) {
  struct Nothing {};
  runInOrder<Nothing>(
      which.size(), static_cast<unsigned>(workers_.size()), 4 * workers_.size(),
      [&](unsigned worker, size_t i, Nothing&) { encodeChunk(*workers_[worker], chunks_[which[i]], speculative); },
      [](size_t, Nothing&) {});
}

void WindowChunks::resolve() {
  // The strings met first in this window, in the order the merge writes
  // the events that met them (at equal keys, of one track: in its order).
  struct Met {
    unsigned __int128 key;
    uint32_t chunk, index;
  };
  std::vector<Met> met;
  for (size_t i = 0; i < used_; ++i) {
    const Chunk& c = chunks_[i];
    for (size_t k = 0; k < c.newKeys.size(); ++k) {
      const PacketRef& p = c.packets[c.newKeys[k].event];
      met.push_back(Met{NextEvent::of(p.ts + offset_, p.phase, c.track).key, static_cast<uint32_t>(i),
                        static_cast<uint32_t>(k)});
    }
  }
  std::sort(met.begin(), met.end(), [&](const Met& a, const Met& b) {
    const uint32_t ea = chunks_[a.chunk].newKeys[a.index].event, eb = chunks_[b.chunk].newKeys[b.index].event;
    return std::tie(a.key, a.chunk, ea, a.index) < std::tie(b.key, b.chunk, eb, b.index);
  });
  // Each chunk's provisional iids, by index in its newKeys: the trace's.
  std::vector<std::vector<uint32_t>> iids(used_);
  std::unordered_map<std::string, uint32_t> given;
  for (const Met& m : met) {
    const NewKey& k = chunks_[m.chunk].newKeys[m.index];
    const auto [it, added] = given.try_emplace(k.index(), 0);
    if (added) {
      it->second = interner_.commit(k);
      for (const auto& w : workers_) w->interner.commit(k);
    }
    std::vector<uint32_t>& of = iids[m.chunk];
    if (of.size() <= m.index) of.resize(chunks_[m.chunk].newKeys.size(), 0);
    of[m.index] = it->second;
  }
  // Each track's chunks in order: what the sequence has interned at each.
  for (size_t t = 0; t < tracks_.size(); ++t) {
    const Reader& r = readers_[t];
    if (r.chunk == r.chunkEnd) continue;
    Sequence& seq = sequences_[1 + t];
    for (size_t i = r.chunk; i < r.chunkEnd; ++i) {
      Chunk& c = chunks_[i];
      auto idOf = [&](const Use& u) { return u.provisional ? iids[i][u.id] : u.id; };
      c.again = !c.newKeys.empty();
      for (size_t u = 0; u < c.uses.size() && !c.again; ++u) c.again = seq.has(c.uses[u].kind, idOf(c.uses[u]));
      if (c.again) {
        c.sequence.id = seq.id;
        c.sequence.categories = seq.categories;
        c.sequence.args = seq.args;
        c.sequence.names = seq.names;
        c.sequence.values = seq.values;
      }
      for (const Use& u : c.uses) seq.add(u.kind, idOf(u));
    }
  }
}

void WindowChunks::encode() {
  cut();
  // The sequences' clocks are at the round's end now; their interned
  // state is still the round's start, which the first run encodes from.
  std::vector<uint32_t> which(used_);
  for (size_t i = 0; i < used_; ++i) which[i] = static_cast<uint32_t>(i);
  run(which, true);
  resolve();
  which.clear();
  for (size_t i = 0; i < used_; ++i)
    if (chunks_[i].again) which.push_back(static_cast<uint32_t>(i));
  run(which, false);
}

void WindowChunks::write(size_t t, Output& o, FlowWriter& flows) {
  Reader& r = readers_[t];
  Chunk& c = chunks_[r.chunk];
  const PacketRef& p = c.packets[r.packet];
  const uint32_t begin = r.packet == 0 ? 0 : c.packets[r.packet - 1].end;
  const uint8_t* data = c.bytes.data() + begin;
  if (!p.flow) {
    o.b.bytes(data, p.end - begin);
  } else {
    const DeferredFlow& f = c.flows[r.flow++];
    ids_.b.clear();
    switch (f.kind) {
      case kFlowStart:
        flows.startDrawnFlows(ids_, f.arg, f.ts);
        break;
      case kFlowOpenAcc:
        flows.startOpenAccFlows(ids_, f.arg, f.ts);
        break;
      case kFlowEnd:
        flows.endFlow(ids_, f.arg, f.ts);
        break;
      default:
        break;
    }
    // As EventEncoder::finish writes it: {timestamp, sequence}, the
    // TrackEvent with the arrows after its first `split` bytes, the interned data.
    const size_t idBytes = ids_.b.size();
    const size_t te = f.trackEvent + idBytes;
    const size_t tail = p.end - begin - f.head - f.trackEvent;
    const size_t body = f.head + 1 + varintSize(te) + te + tail;
    uint8_t* q = o.b.tail(1 + 10 + body);
    *q++ = kTagPacket;
    q = putVarint(q, body);
    std::memcpy(q, data, f.head);
    q += f.head;
    *q++ = kTagTrackEvent;
    q = putVarint(q, te);
    std::memcpy(q, data + f.head, f.split);
    q += f.split;
    std::memcpy(q, ids_.b.data(), idBytes);
    q += idBytes;
    std::memcpy(q, data + f.head + f.split, f.trackEvent - f.split + tail);
    q += f.trackEvent - f.split + tail;
    o.b.setTail(q);
  }
  ++o.stats.events;
  ++o.stats.packets;
  o.maybeFlush();
  if (++r.packet == c.packets.size()) {
    ++r.chunk;
    r.packet = 0;
    r.flow = 0;
  }
}

}  // namespace cuptitrace::pftrace
