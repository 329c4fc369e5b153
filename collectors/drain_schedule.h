// When the drain thread, besides decoding what CUPTI hands over, flushes
// CUPTI and writes the journal's tails (TraceStore::journalTails).
//
// A flush hands back every buffer whose records are complete (threads that
// went quiet keep theirs until one). The tails go to the journal right after
// a flush and the drain that follows it, so what the journal holds is at most
// one tail period behind what CUPTI had completed, not a flush period more.
#pragma once

#include <algorithm>
#include <chrono>

namespace cuptitrace {

class DrainSchedule {
 public:
  using Clock = std::chrono::steady_clock;

  // `tailPeriod` zero: no tails (no journal, or only full chunks).
  DrainSchedule(Clock::duration flushPeriod, Clock::duration tailPeriod, Clock::time_point now)
      : flushPeriod_(flushPeriod), tailPeriod_(tailPeriod), lastFlush_(now), lastTails_(now) {}

  // How long the thread may sleep waiting for buffers before something is
  // due; never more than `idle`, which it wakes at anyway.
  Clock::duration wait(Clock::time_point now, Clock::duration idle) const {
    Clock::duration w = std::min(idle, flushPeriod_ - (now - lastFlush_));
    if (tailPeriod_ > Clock::duration::zero()) w = std::min(w, tailPeriod_ - (now - lastTails_));
    return std::max(w, Clock::duration::zero());
  }

  struct Due {
    bool flush = false;
    bool tails = false;
  };
  // What is due at `now`, marked done: tails bring a flush with them.
  Due due(Clock::time_point now) {
    Due d;
    d.tails = tailPeriod_ > Clock::duration::zero() && now - lastTails_ >= tailPeriod_;
    d.flush = d.tails || now - lastFlush_ >= flushPeriod_;
    if (d.flush) lastFlush_ = now;
    if (d.tails) lastTails_ = now;
    return d;
  }

 private:
  Clock::duration flushPeriod_;
  Clock::duration tailPeriod_;
  Clock::time_point lastFlush_;
  Clock::time_point lastTails_;
};

}  // namespace cuptitrace
