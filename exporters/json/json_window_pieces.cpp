#include "exporters/json/json_window_pieces.h"

#include <algorithm>
#include <streambuf>
#include <string>

#include "exporters/json/json_args.h"
#include "exporters/json/json_slices.h"
#include "exporters/json/json_strings.h"
#include "core/ordered_work.h"

namespace cuptitrace {
namespace {

// A stream appending to the string it is pointed at.
class StringBuf : public std::streambuf {
 public:
  void target(std::string* text) { text_ = text; }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    text_->append(s, static_cast<size_t>(n));
    return n;
  }
  int_type overflow(int_type ch) override {
    if (!traits_type::eq_int_type(ch, traits_type::eof())) text_->push_back(traits_type::to_char_type(ch));
    return traits_type::not_eof(ch);
  }

 private:
  std::string* text_ = nullptr;
};

// What a piece came to: its text (each event with the comma before it) and counts.
struct PieceText {
  std::string text;
  uint64_t events = 0;
  uint64_t flows = 0;  // arrows ended (JsonExportStats::flows)
};

}  // namespace

// One thread's encoders, all its own: nothing but the trace and the tracks'
// names (read only while the pieces are written) is shared.
struct JsonWindowPieces::Worker {
  Worker(const Trace& trace, const TimelineRecords& rec, const JsonFlows& planned, uint64_t base)
      : out(&buf),
        events(out),
        strings(trace),
        args(trace, strings),
        flows(planned, events),
        slices(trace, rec, events, strings, args, flows) {
    slices.setBase(base);
  }

  StringBuf buf;
  std::ostream out;
  JsonEvents events;
  JsonStrings strings;
  JsonArgs args;
  JsonFlows flows;
  JsonSlices slices;
};

JsonWindowPieces::JsonWindowPieces(const Trace& trace, const TimelineRecords& rec, JsonEvents& events,
                                   JsonFlows& flows, uint64_t base, unsigned threads)
    : e_(events), flows_(flows) {
  for (unsigned i = 0; i < threads; ++i) workers_.push_back(std::make_unique<Worker>(trace, rec, flows, base));
}

JsonWindowPieces::~JsonWindowPieces() {
  for (const auto& w : workers_) flows_.addWritten(w->flows.written());
}

void JsonWindowPieces::write(const WindowLayout& layout, std::vector<JsonTrack>& tracks) {
  const Slice* slices = layout.slices();
  pieces_.clear();
  for (size_t t = 0; t < layout.tracks(); ++t) {
    const size_t first = layout.first(t);
    const size_t end = layout.end(t);
    if (first == end) continue;
    // The track's names of its lanes made here, before the threads read them.
    uint8_t lanes = 0;
    for (size_t i = first; i < end; ++i) lanes = std::max(lanes, slices[i].lane);
    if (lanes > tracks[t].lanePrefixes.size()) tracks[t].addLanes(lanes);
    for (size_t i = first; i < end; i += kJsonPieceSlices)
      pieces_.push_back(Piece{static_cast<uint32_t>(t), i, std::min(end, i + kJsonPieceSlices)});
  }
  const auto threads = static_cast<unsigned>(workers_.size());
  runInOrder<PieceText>(
      pieces_.size(), threads, 4 * size_t{threads},
      [&](unsigned worker, size_t i, PieceText& result) {
        Worker& w = *workers_[worker];
        const Piece& p = pieces_[i];
        result.text.clear();
        w.buf.target(&result.text);
        // Every event of a piece has its comma: the one before it is written already.
        w.events.stats = JsonExportStats{};
        w.events.stats.events = 1;
        w.slices.writeTrack(tracks[p.track], slices + p.first, slices + p.end);
        w.events.flush();
        result.events = w.events.stats.events - 1;
        result.flows = w.events.stats.flows;
      },
      [&](size_t, PieceText& result) {
        if (result.events == 0) return;
        // The first event of the file has no comma before it.
        const size_t skip = e_.stats.events == 0 ? 2 : 0;
        e_.write(result.text.data() + skip, result.text.size() - skip);
        e_.stats.events += result.events;
        e_.stats.flows += result.flows;
      });
}

}  // namespace cuptitrace
