#include "core/capture_window.h"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <utility>

namespace cuptitrace {
namespace {

constexpr size_t kMaxRangeNameBytes = 256;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool allDigits(std::string_view s) {
  return !s.empty() && s.size() <= 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

uint64_t toUint(std::string_view s) {
  uint64_t v = 0;
  for (char c : s) v = v * 10 + static_cast<uint64_t>(c - '0');
  return v;
}

bool fail(std::string* why, const char* text) {
  if (why != nullptr) *why = text;
  return false;
}

// "1.5s", "250ms", "0", "2m": nanoseconds, exact, at most 100 days.
std::optional<uint64_t> parseDuration(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  const std::string_view number = text.substr(0, i);
  const std::string unit = lower(text.substr(i));
  uint64_t scale = 0;
  if (unit.empty() || unit == "s") scale = 1000000000ull;
  else if (unit == "ms") scale = 1000000ull;
  else if (unit == "us") scale = 1000ull;
  else if (unit == "ns") scale = 1ull;
  else if (unit == "m" || unit == "min") scale = 60000000000ull;
  else if (unit == "h") scale = 3600000000000ull;
  else return std::nullopt;
  const size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
  if (!allDigits(whole)) return std::nullopt;
  if (dot != std::string_view::npos && (!allDigits(frac) || frac.size() > 9)) return std::nullopt;
  constexpr uint64_t kMaxNs = 100ull * 24 * 3600 * 1000000000ull;
  if (toUint(whole) > kMaxNs / scale) return std::nullopt;
  uint64_t ns = toUint(whole) * scale;
  if (!frac.empty()) {
    uint64_t denominator = 1;
    for (size_t k = 0; k < frac.size(); ++k) denominator *= 10;
    const uint64_t f = toUint(frac);  // below `denominator`: no overflow below
    // Exact nanoseconds only: "1.5ns" is not a time this clock can hold.
    if (scale % denominator == 0) ns += f * (scale / denominator);
    else if ((f * scale) % denominator == 0) ns += f * scale / denominator;
    else return std::nullopt;
  }
  if (ns > kMaxNs) return std::nullopt;
  return ns;
}

std::string durationText(uint64_t ns) {
  if (ns == 0) return "0";
  if (ns % 1000000000ull == 0) return std::to_string(ns / 1000000000ull) + "s";
  if (ns % 1000000ull == 0) return std::to_string(ns / 1000000ull) + "ms";
  if (ns % 1000ull == 0) return std::to_string(ns / 1000ull) + "us";
  return std::to_string(ns) + "ns";
}

// USR1, USR2, RTMIN, RTMIN+N, with or without SIG, any case. Signals whose
// default action matters to the program (TERM, INT, ...) are not accepted.
bool parseSignal(std::string_view text, CaptureSpec& spec) {
  std::string name = lower(text);
  if (name.rfind("sig", 0) == 0) name.erase(0, 3);
  if (name == "usr1") {
    spec.signal = SIGUSR1;
    spec.signalName = "USR1";
    return true;
  }
  if (name == "usr2") {
    spec.signal = SIGUSR2;
    spec.signalName = "USR2";
    return true;
  }
  if (name.rfind("rtmin", 0) != 0) return false;
  uint64_t offset = 0;
  if (name.size() > 5) {
    if (name[5] != '+' || !allDigits(std::string_view(name).substr(6)) || name.size() > 9) return false;
    offset = toUint(std::string_view(name).substr(6));
  }
  if (static_cast<int64_t>(offset) > SIGRTMAX - SIGRTMIN) return false;
  spec.signal = SIGRTMIN + static_cast<int>(offset);
  spec.signalName = offset == 0 ? "RTMIN" : "RTMIN+" + std::to_string(offset);
  return true;
}

bool parseNvtx(std::string_view text, CaptureSpec& spec, std::string* why) {
  std::string_view name = text;
  const size_t at = text.rfind('@');
  if (at != std::string_view::npos) {
    const std::string_view occ = text.substr(at + 1);
    const size_t dash = occ.find('-');
    const std::string_view from = occ.substr(0, dash);
    const std::string_view to = dash == std::string_view::npos ? std::string_view() : occ.substr(dash + 1);
    if (occ == "*") {
      name = text.substr(0, at);
    } else if (allDigits(from) && (dash == std::string_view::npos || to.empty() || allDigits(to))) {
      name = text.substr(0, at);
      spec.everyRange = false;
      spec.first = toUint(from);
      spec.last = dash == std::string_view::npos ? spec.first : (to.empty() ? UINT64_MAX : toUint(to));
      if (spec.first == 0) return fail(why, "occurrences count from 1");
      if (spec.last < spec.first) return fail(why, "the last occurrence comes before the first");
    }
  }
  if (!name.empty() && name.back() == '*') {
    spec.rangePrefix = true;
    name.remove_suffix(1);
  }
  if (name.empty() && !spec.rangePrefix) return fail(why, "nvtx: needs a range name");
  if (name.size() > kMaxRangeNameBytes) return fail(why, "the range name is too long");
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return fail(why, "the range name holds a control character");
  }
  spec.rangeName = std::string(name);
  return true;
}

}  // namespace

std::optional<CaptureSpec> parseCaptureSpec(std::string_view text, std::string* why) {
  text = trim(text);
  CaptureSpec spec;
  const size_t colon = text.find(':');
  const std::string keyword = lower(text.substr(0, colon));
  const std::string_view rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  const bool hasRest = colon != std::string_view::npos;
  if (keyword == "all" && !hasRest) return spec;
  if (keyword == "profiler" && !hasRest) {
    spec.mode = CaptureMode::Profiler;
    return spec;
  }
  if (keyword == "nvtx" && hasRest) {
    spec.mode = CaptureMode::Nvtx;
    if (!parseNvtx(rest, spec, why)) return std::nullopt;
    return spec;
  }
  if (keyword == "time" && hasRest) {
    spec.mode = CaptureMode::Time;
    const size_t plus = rest.find('+');
    const auto delay = parseDuration(trim(rest.substr(0, plus)));
    if (!delay) {
      fail(why, "the delay is not a time (like 500ms, 2s, 1.5m)");
      return std::nullopt;
    }
    spec.delayNs = *delay;
    if (plus != std::string_view::npos) {
      const auto duration = parseDuration(trim(rest.substr(plus + 1)));
      if (!duration || *duration == 0) {
        fail(why, "the duration is not a time above 0 (like 500ms, 2s, 1.5m)");
        return std::nullopt;
      }
      spec.durationNs = *duration;
    }
    return spec;
  }
  if (keyword == "signal") {
    spec.mode = CaptureMode::Signal;
    if (!parseSignal(hasRest ? trim(rest) : std::string_view("USR2"), spec)) {
      fail(why, "the signal is not one of USR1, USR2, RTMIN, RTMIN+N");
      return std::nullopt;
    }
    return spec;
  }
  fail(why, "not one of all, profiler, nvtx:NAME[@N[-M]], time:DELAY[+DURATION], signal[:NAME]");
  return std::nullopt;
}

std::string captureSpecText(const CaptureSpec& spec) {
  switch (spec.mode) {
    case CaptureMode::All: return "all";
    case CaptureMode::Profiler: return "profiler";
    case CaptureMode::Nvtx: {
      std::string text = "nvtx:" + spec.rangeName + (spec.rangePrefix ? "*" : "");
      if (!spec.everyRange) {
        text += "@" + std::to_string(spec.first);
        if (spec.last == UINT64_MAX) text += "-";
        else if (spec.last != spec.first) text += "-" + std::to_string(spec.last);
      } else if (text.find('@') != std::string::npos) {
        text += "@*";  // a name holding '@' must not read back as occurrences
      }
      return text;
    }
    case CaptureMode::Time:
      return "time:" + durationText(spec.delayNs) + (spec.durationNs ? "+" + durationText(spec.durationNs) : "");
    case CaptureMode::Signal: return "signal:" + spec.signalName;
  }
  return "all";
}

CaptureWindow::CaptureWindow(CaptureSpec spec) : spec_(std::move(spec)) {}

CaptureChange CaptureWindow::set(bool on) {
  if (on == on_) return CaptureChange::None;
  on_ = on;
  return on ? CaptureChange::Open : CaptureChange::Close;
}

CaptureChange CaptureWindow::start(uint64_t nowNs) {
  if (started_) return CaptureChange::None;
  started_ = true;
  startNs_ = nowNs;
  if (spec_.mode == CaptureMode::All) {
    finished_ = true;  // nothing will change any more
    return set(true);
  }
  if (spec_.mode == CaptureMode::Time) return tick(nowNs);
  return CaptureChange::None;
}

CaptureChange CaptureWindow::profilerStart() {
  if (!started_ || spec_.mode != CaptureMode::Profiler) return CaptureChange::None;
  return set(true);
}

CaptureChange CaptureWindow::profilerStop() {
  if (!started_ || spec_.mode != CaptureMode::Profiler) return CaptureChange::None;
  return set(false);
}

CaptureChange CaptureWindow::toggle() {
  if (!started_ || spec_.mode != CaptureMode::Signal) return CaptureChange::None;
  return set(!on_);
}

bool CaptureWindow::matches(std::string_view name) const {
  if (spec_.rangePrefix) return name.substr(0, spec_.rangeName.size()) == spec_.rangeName;
  return name == spec_.rangeName;
}

CaptureChange CaptureWindow::opened(uint64_t occurrence) {
  if (!inRange(occurrence)) return CaptureChange::None;
  ++openInRange_;
  return set(true);
}

CaptureChange CaptureWindow::closed(uint64_t occurrence) {
  if (occurrence == 0 || !inRange(occurrence) || openInRange_ == 0) return CaptureChange::None;
  --openInRange_;
  if (openInRange_ != 0) return CaptureChange::None;
  // Every range is a window of its own; a span of occurrences ends when the
  // last of them has opened and none of them is open any more.
  if (spec_.everyRange) return set(false);
  if (occurrences_ < spec_.last) return CaptureChange::None;
  finished_ = true;
  stacks_.clear();
  startedRanges_.clear();
  return set(false);
}

CaptureChange CaptureWindow::rangePush(uint32_t tid, uint64_t domain, std::string_view name) {
  if (!started_ || finished_ || spec_.mode != CaptureMode::Nvtx) return CaptureChange::None;
  const uint64_t occurrence = matches(name) ? ++occurrences_ : 0;
  stacks_[tid].push_back({domain, occurrence});
  return occurrence != 0 ? opened(occurrence) : CaptureChange::None;
}

CaptureChange CaptureWindow::rangePop(uint32_t tid, uint64_t domain) {
  if (!started_ || finished_ || spec_.mode != CaptureMode::Nvtx) return CaptureChange::None;
  auto it = stacks_.find(tid);
  if (it == stacks_.end()) return CaptureChange::None;
  auto& stack = it->second;
  // The innermost range of this domain; ranges of other domains stay open.
  auto pushed = std::find_if(stack.rbegin(), stack.rend(), [&](const Pushed& p) { return p.domain == domain; });
  if (pushed == stack.rend()) return CaptureChange::None;
  const uint64_t occurrence = pushed->occurrence;
  stack.erase(std::next(pushed).base());
  if (stack.empty()) stacks_.erase(it);
  return closed(occurrence);
}

CaptureChange CaptureWindow::rangeStart(uint64_t id, std::string_view name) {
  if (!started_ || finished_ || spec_.mode != CaptureMode::Nvtx || !matches(name)) return CaptureChange::None;
  const uint64_t occurrence = ++occurrences_;
  startedRanges_[id] = occurrence;
  return opened(occurrence);
}

CaptureChange CaptureWindow::rangeEnd(uint64_t id) {
  if (!started_ || finished_ || spec_.mode != CaptureMode::Nvtx) return CaptureChange::None;
  auto it = startedRanges_.find(id);
  if (it == startedRanges_.end()) return CaptureChange::None;
  const uint64_t occurrence = it->second;
  startedRanges_.erase(it);
  return closed(occurrence);
}

CaptureChange CaptureWindow::tick(uint64_t nowNs) {
  if (!started_ || finished_ || spec_.mode != CaptureMode::Time) return CaptureChange::None;
  const uint64_t elapsed = nowNs >= startNs_ ? nowNs - startNs_ : 0;
  const uint64_t closeAt = spec_.durationNs ? spec_.delayNs + spec_.durationNs : UINT64_MAX;
  if (elapsed >= closeAt) {
    finished_ = true;
    return set(false);
  }
  return set(elapsed >= spec_.delayNs);
}

uint64_t CaptureWindow::nextDeadline() const {
  if (!started_ || finished_ || spec_.mode != CaptureMode::Time) return UINT64_MAX;
  const uint64_t at = on_ ? (spec_.durationNs ? spec_.delayNs + spec_.durationNs : UINT64_MAX) : spec_.delayNs;
  if (at == UINT64_MAX || startNs_ > UINT64_MAX - at) return UINT64_MAX;
  return startNs_ + at;
}

}  // namespace cuptitrace
