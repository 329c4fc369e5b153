// What the text output tests share: a trace whose names hold invalid UTF-8,
// and a UTF-8 check of the tests' own, written from RFC 3629's grammar
// rather than with the library's scanner, so that a fault there cannot hide
// one in the outputs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/trace.h"
#include "trace_fixture.h"

namespace cuptitrace::testing {

inline const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Names with bytes that are never UTF-8 (FF, FE), a sequence cut short (E2 9C)
// and an overlong form (C0 AF), each next to valid text.
inline const std::string kBadMessage = "bad \xFF\xFE range";
inline const std::string kBadKernel = "_Z6bad\xE2\x9Ck";
inline const std::string kBadThread = "worker \xC0\xAF";
inline const std::string kBadStream = "stream \xFF";
inline const std::string kBadDomain = "domain \xFE";
// What each becomes: one U+FFFD per invalid sequence (the maximal-subpart rule).
inline const std::string kFixedMessage = "bad " + kReplacement + kReplacement + " range";
// (what the mangled name and its demangled form, "bad?k", share)
inline const std::string kFixedKernel = "bad" + kReplacement + "k";
inline const std::string kFixedThread = "worker " + kReplacement + kReplacement;
inline const std::string kFixedStream = "stream " + kReplacement;
inline const std::string kFixedDomain = "domain " + kReplacement;

// RFC 3629, section 4: the well-formed byte sequences.
inline bool wellFormedUtf8(std::string_view s) {
  auto in = [](unsigned char c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; };
  size_t i = 0;
  while (i < s.size()) {
    const auto b = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
    const unsigned char c = b(0);
    size_t n = 0;
    if (c <= 0x7F) n = 1;
    else if (in(c, 0xC2, 0xDF) && in(b(1), 0x80, 0xBF)) n = 2;
    else if (c == 0xE0 && in(b(1), 0xA0, 0xBF) && in(b(2), 0x80, 0xBF)) n = 3;
    else if ((in(c, 0xE1, 0xEC) || in(c, 0xEE, 0xEF)) && in(b(1), 0x80, 0xBF) && in(b(2), 0x80, 0xBF)) n = 3;
    else if (c == 0xED && in(b(1), 0x80, 0x9F) && in(b(2), 0x80, 0xBF)) n = 3;
    else if (c == 0xF0 && in(b(1), 0x90, 0xBF) && in(b(2), 0x80, 0xBF) && in(b(3), 0x80, 0xBF)) n = 4;
    else if (in(c, 0xF1, 0xF3) && in(b(1), 0x80, 0xBF) && in(b(2), 0x80, 0xBF) && in(b(3), 0x80, 0xBF)) n = 4;
    else if (c == 0xF4 && in(b(1), 0x80, 0x8F) && in(b(2), 0x80, 0xBF) && in(b(3), 0x80, 0xBF)) n = 4;
    if (n == 0) return false;
    i += n;
  }
  return true;
}

inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// A launch on a named thread and stream whose kernel and NVTX range (in a
// named domain, around the launch) carry the bad names above; the process
// name and command line hold an invalid byte too.
inline void fillBadNamesTrace(Trace& t) {
  initTrace(t);
  t.meta.processName = "app\xFF";
  t.meta.commandLine = "./app \xFE";
  t.threadNames[kSamplePid] = kBadThread;
  t.streamNames[7] = kBadStream;
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 100, b + 200, 1);
  addKernel(t, b + 300, b + 900, 1, 7, kBadKernel);
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::PushPop);
  n.start = b + 50;
  n.end = b + 250;
  n.message = t.strings.intern(kBadMessage);
  n.domain = t.strings.intern(kBadDomain);
  n.threadId = n.endThreadId = kSamplePid;
  t.store.add(n);
}

}  // namespace cuptitrace::testing
