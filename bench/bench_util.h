// Pieces every benchmark in bench/ uses: a fixed-sequence random generator
// for synthetic records, and an output stream that only counts bytes.
#pragma once

#include <cstdint>
#include <streambuf>

namespace cuptitrace::bench {

struct Rng {  // xorshift64*: fast, fixed sequence for a seed
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ull;
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

// An ostream buffer that only counts what it is given.
class CountingBuf : public std::streambuf {
 public:
  uint64_t bytes = 0;

 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += static_cast<uint64_t>(n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) ++bytes;
    return traits_type::not_eof(c);
  }
};

}  // namespace cuptitrace::bench
