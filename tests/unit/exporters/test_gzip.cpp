// DEFLATE, CRC-32 and the gzip stream: what they write is read back by an
// inflater written here from RFC 1951 alone (test-only), and, in the test
// tagged [python], by Python's gzip and zlib modules.
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/config.h"
#include "exporters/chrome_json.h"
#include "exporters/deflate.h"
#include "exporters/export_all.h"
#include "exporters/file_output.h"
#include "exporters/gzip_stream.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

// ---- A test-only inflater (RFC 1951), after the shape of zlib's puff.c ------

class Inflater {
 public:
  Inflater(const uint8_t* data, size_t size) : in_(data), size_(size) {}

  // Inflates one stream; false (and `error`) on anything malformed.
  bool run(Bytes& out) {
    bool last = false;
    while (!last) {
      last = bits(1) == 1;
      const uint32_t type = bits(2);
      if (type == 0) {
        if (!stored(out)) return false;
      } else if (type == 1) {
        if (!fixed(out)) return false;
      } else if (type == 2) {
        if (!dynamic(out)) return false;
      } else {
        return fail("block type 3");
      }
      if (overrun_) return fail("input ends inside a block");
      ++blockTypes[type];
    }
    return true;
  }
  size_t bytesUsed() const { return (bitPos_ + 7) / 8; }

  int blockTypes[3] = {0, 0, 0};  // stored, fixed, dynamic
  std::string error;

 private:
  struct Huffman {
    std::vector<int> count = std::vector<int>(16, 0);
    std::vector<int> symbol;
  };

  bool fail(const std::string& why) {
    if (error.empty()) error = why;
    return false;
  }
  uint32_t bits(int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i, ++bitPos_) {
      if (bitPos_ / 8 >= size_) {
        overrun_ = true;
        return 0;
      }
      v |= uint32_t((in_[bitPos_ / 8] >> (bitPos_ % 8)) & 1) << i;
    }
    return v;
  }
  // Builds a canonical code; false when over-subscribed or, unless one code
  // is all there is, incomplete.
  bool build(Huffman& h, const int* lengths, int n) {
    h.count.assign(16, 0);
    h.symbol.assign(static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i) ++h.count[lengths[i]];
    if (h.count[0] == n) return true;
    int left = 1;
    for (int len = 1; len < 16; ++len) {
      left = left * 2 - h.count[len];
      if (left < 0) return fail("over-subscribed code");
    }
    std::vector<int> offs(16, 0);
    for (int len = 1; len < 15; ++len) offs[len + 1] = offs[len] + h.count[len];
    for (int i = 0; i < n; ++i)
      if (lengths[i] != 0) h.symbol[static_cast<size_t>(offs[lengths[i]]++)] = i;
    if (left > 0 && !(n - h.count[0] == 1)) return fail("incomplete code");
    return true;
  }
  int decode(const Huffman& h) {
    int code = 0, first = 0, index = 0;
    for (int len = 1; len < 16; ++len) {
      code |= static_cast<int>(bits(1));
      const int count = h.count[len];
      if (code - count < first) return h.symbol[static_cast<size_t>(index + (code - first))];
      index += count;
      first = (first + count) << 1;
      code <<= 1;
      if (overrun_) break;
    }
    return -1;
  }
  bool stored(Bytes& out) {
    bitPos_ = (bitPos_ + 7) / 8 * 8;
    const uint32_t len = bits(16);
    const uint32_t nlen = bits(16);
    if (overrun_ || (len ^ 0xffff) != nlen) return fail("stored length check");
    if (bitPos_ / 8 + len > size_) return fail("stored block past the input");
    out.insert(out.end(), in_ + bitPos_ / 8, in_ + bitPos_ / 8 + len);
    bitPos_ += size_t{len} * 8;
    return true;
  }
  bool codes(Bytes& out, const Huffman& lit, const Huffman& dist) {
    static const int kLenBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                     31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const int kLenExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    static const int kDistBase[30] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                                      33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                                      1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
    static const int kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
    for (;;) {
      const int sym = decode(lit);
      if (sym < 0 || overrun_) return fail("bad literal/length code");
      if (sym < 256) {
        out.push_back(static_cast<uint8_t>(sym));
      } else if (sym == 256) {
        return true;
      } else {
        const int l = sym - 257;
        if (l >= 29) return fail("length symbol out of range");
        const size_t len = static_cast<size_t>(kLenBase[l]) + bits(kLenExtra[l]);
        const int d = decode(dist);
        if (d < 0 || d >= 30) return fail("bad distance code");
        const size_t distance = static_cast<size_t>(kDistBase[d]) + bits(kDistExtra[d]);
        if (distance > out.size() || distance > 32768) return fail("distance too far back");
        maxDistance = std::max(maxDistance, distance);
        for (size_t i = 0; i < len; ++i) out.push_back(out[out.size() - distance]);
      }
    }
  }
  bool fixed(Bytes& out) {
    int lengths[320];
    for (int i = 0; i < 288; ++i) lengths[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    Huffman lit, dist;
    build(lit, lengths, 288);
    for (int i = 0; i < 30; ++i) lengths[i] = 5;
    build(dist, lengths, 30);
    return codes(out, lit, dist);
  }
  bool dynamic(Bytes& out) {
    static const int kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    const int nlen = static_cast<int>(bits(5)) + 257;
    const int ndist = static_cast<int>(bits(5)) + 1;
    const int ncode = static_cast<int>(bits(4)) + 4;
    if (nlen > 286 || ndist > 30) return fail("too many codes");
    int lengths[320] = {};
    for (int i = 0; i < ncode; ++i) lengths[kOrder[i]] = static_cast<int>(bits(3));
    Huffman lencode;
    if (!build(lencode, lengths, 19)) return false;
    int index = 0;
    while (index < nlen + ndist) {
      int sym = decode(lencode);
      if (sym < 0 || overrun_) return fail("bad code length code");
      if (sym < 16) {
        lengths[index++] = sym;
        continue;
      }
      int len = 0, repeat = 0;
      if (sym == 16) {
        if (index == 0) return fail("repeat with no previous length");
        len = lengths[index - 1];
        repeat = 3 + static_cast<int>(bits(2));
      } else if (sym == 17) {
        repeat = 3 + static_cast<int>(bits(3));
      } else {
        repeat = 11 + static_cast<int>(bits(7));
      }
      if (index + repeat > nlen + ndist) return fail("code lengths run past the end");
      while (repeat-- > 0) lengths[index++] = len;
    }
    if (lengths[256] == 0) return fail("no end-of-block code");
    Huffman lit, dist;
    if (!build(lit, lengths, nlen)) return false;
    if (!build(dist, lengths + nlen, ndist)) return false;
    return codes(out, lit, dist);
  }

  const uint8_t* in_;
  size_t size_;
  size_t bitPos_ = 0;
  bool overrun_ = false;

 public:
  size_t maxDistance = 0;  // the longest distance any match used
};

uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

Bytes inflateOrFail(const Bytes& z, Inflater* seen = nullptr) {
  Inflater inf(z.data(), z.size());
  Bytes out;
  INFO(inf.error);
  REQUIRE(inf.run(out));
  CHECK(inf.bytesUsed() == z.size());  // nothing after the final block
  if (seen != nullptr) *seen = inf;
  return out;
}

// Checks the gzip framing and returns the inflated content.
Bytes gunzipOrFail(const Bytes& gz) {
  REQUIRE(gz.size() >= 18);
  CHECK(gz[0] == 0x1f);
  CHECK(gz[1] == 0x8b);
  CHECK(gz[2] == 8);  // deflate
  CHECK(gz[3] == 0);  // no optional fields
  Inflater inf(gz.data() + 10, gz.size() - 18);
  Bytes out;
  INFO(inf.error);
  REQUIRE(inf.run(out));
  CHECK(10 + inf.bytesUsed() + 8 == gz.size());
  CHECK(le32(&gz[gz.size() - 8]) == crc32(0, out.data(), out.size()));
  CHECK(le32(&gz[gz.size() - 4]) == static_cast<uint32_t>(out.size()));
  return out;
}

Bytes bytesOf(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(n);
  for (auto& c : b) c = static_cast<uint8_t>(rng());
  return b;
}

// Text of the kind traces hold: repeated structure, changing numbers.
std::string traceLikeText(size_t events, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s = "{\"traceEvents\":[\n";
  uint64_t ts = 1000;
  for (size_t i = 0; i < events; ++i) {
    ts += rng() % 5000;
    s += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel_" + std::to_string(rng() % 20) +
         "\",\"pid\":1073741824,\"tid\":7,\"ts\":" + std::to_string(ts / 1000) + "." + std::to_string(ts % 1000) +
         ",\"dur\":" + std::to_string(rng() % 4000) + ",\"args\":{\"correlation\":" + std::to_string(i + 1) + "}},\n";
  }
  return s + "{}]}\n";
}

// A trace of `pairs` launches and kernels, like a launch-bound program's.
void fillLaunchTrace(Trace& t, size_t pairs) {
  testing::fillSampleTrace(t);
  std::mt19937 rng(7);
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  std::vector<StringId> names;
  for (int i = 0; i < 12; ++i) names.push_back(t.strings.intern("_ZN7project6kernel" + std::to_string(i) + "IfEEvPKT_i"));
  uint64_t cpu = t.meta.baseTimestampNs + 100'000;
  for (size_t i = 0; i < pairs; ++i) {
    ApiRecord a{};
    a.start = cpu;
    a.end = cpu + 2'000 + rng() % 3'000;
    a.name = launch;
    a.correlationId = static_cast<uint32_t>(1000 + i);
    a.threadId = t.meta.pid;
    a.cbid = 211;
    t.store.add(a);
    KernelRecord k{};
    k.start = a.end + 3'000 + rng() % 1'000;
    k.end = k.start + 1'000 + rng() % 5'000;
    k.name = names[rng() % names.size()];
    k.correlationId = a.correlationId;
    k.contextId = 1;
    k.streamId = 7;
    k.gridX = 128;
    k.gridY = k.gridZ = 1;
    k.blockX = 256;
    k.blockY = k.blockZ = 1;
    k.registersPerThread = 32;
    t.store.add(k);
    cpu = a.end + 500 + rng() % 500;
  }
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/cuptitrace-gzip-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    REQUIRE(made != nullptr);
    path = made;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

// The inputs every round trip is tried on: empty, one byte, incompressible,
// repeats at distances near the window's 32 KiB, runs longer than a match,
// text, and inputs past the encoder's 256 KiB step and its window slide.
std::vector<std::pair<std::string, Bytes>> sampleInputs() {
  std::vector<std::pair<std::string, Bytes>> inputs;
  inputs.emplace_back("empty", Bytes{});
  inputs.emplace_back("one byte", Bytes{'x'});
  inputs.emplace_back("random 300K", randomBytes(300'000, 1));
  {
    Bytes b = randomBytes(30'000, 2);  // repeated 12 times, distance 30000 (inside the window)
    const Bytes block = b;
    for (int i = 0; i < 11; ++i) b.insert(b.end(), block.begin(), block.end());
    inputs.emplace_back("30000-byte block repeated", b);
  }
  {
    Bytes b = randomBytes(40'000, 3);  // distance 40000: beyond the window, must not be used
    const Bytes block = b;
    b.insert(b.end(), block.begin(), block.end());
    inputs.emplace_back("40000-byte block repeated", b);
  }
  inputs.emplace_back("one byte run 1M", Bytes(1 << 20, 'a'));
  {
    Bytes b;
    for (int i = 0; i < 100'000; ++i) b.push_back(static_cast<uint8_t>("abcdefghij"[i % 10]));
    inputs.emplace_back("period 10", b);
  }
  inputs.emplace_back("trace-like text 1.5M", bytesOf(traceLikeText(14'000, 4)));
  {
    // Runs of text and noise alternating, so blocks of every type are chosen.
    Bytes b;
    for (int i = 0; i < 8; ++i) {
      const Bytes noise = randomBytes(20'000 + 7'000 * i, 10 + i);
      const std::string text = traceLikeText(200 + 100 * i, 20 + i);
      b.insert(b.end(), noise.begin(), noise.end());
      b.insert(b.end(), text.begin(), text.end());
    }
    inputs.emplace_back("text and noise", b);
  }
  return inputs;
}

}  // namespace

TEST_CASE("crc32: known values", "[gzip]") {
  const char* digits = "123456789";
  CHECK(crc32(0, digits, 9) == 0xCBF43926u);
  CHECK(crc32(0, "", 0) == 0u);
  CHECK(crc32(0, "a", 1) == 0xE8B7BE43u);
  const std::string fox = "The quick brown fox jumps over the lazy dog";
  CHECK(crc32(0, fox.data(), fox.size()) == 0x414FA339u);
  // Continued in pieces of every split, and from unaligned addresses.
  for (size_t cut = 0; cut <= fox.size(); ++cut)
    CHECK(crc32(crc32(0, fox.data(), cut), fox.data() + cut, fox.size() - cut) == 0x414FA339u);
  const Bytes zeros(4096, 0);
  CHECK(crc32(0, zeros.data(), zeros.size()) == 0xC71C0011u);
  std::string shifted = "x" + fox;
  CHECK(crc32(0, shifted.data() + 1, fox.size()) == 0x414FA339u);
}

TEST_CASE("deflate: every sample input inflates back to itself", "[gzip]") {
  for (const auto& [name, input] : sampleInputs()) {
    INFO(name << " (" << input.size() << " bytes)");
    const Bytes z = deflateBytes(input.data(), input.size());
    Inflater seen(nullptr, 0);
    const Bytes back = inflateOrFail(z, &seen);
    CHECK(back == input);
    // Never much larger than the input: incompressible data is stored.
    CHECK(z.size() <= input.size() + input.size() / 1000 + 16);
    if (name == "40000-byte block repeated") CHECK(z.size() > input.size() * 99 / 100);
    if (name == "30000-byte block repeated") {
      CHECK(z.size() < input.size() / 8);
      CHECK(seen.maxDistance >= 30'000);
    }
    if (name == "one byte run 1M") CHECK(z.size() < 4'000);
    if (name == "random 300K") CHECK(seen.blockTypes[0] > 0);
    if (name == "trace-like text 1.5M") {
      CHECK(seen.blockTypes[2] > 0);
      CHECK(z.size() * 5 < input.size());
    }
    if (name == "text and noise") {
      CHECK(seen.blockTypes[0] > 0);
      CHECK(seen.blockTypes[2] > 0);
    }
  }
  // A short text is best sent with the fixed codes.
  const std::string hello = "hello hello hello hello";
  Inflater seen(nullptr, 0);
  CHECK(inflateOrFail(deflateBytes(hello.data(), hello.size()), &seen) == bytesOf(hello));
  CHECK(seen.blockTypes[1] == 1);
}

TEST_CASE("deflate: input given in pieces of any size compresses the same", "[gzip]") {
  const Bytes input = sampleInputs().back().second;
  const Bytes whole = deflateBytes(input.data(), input.size());
  for (const size_t piece : {size_t{1}, size_t{7}, size_t{4096}, size_t{65536 + 3}, size_t{300'000}}) {
    INFO("pieces of " << piece);
    DeflateEncoder encoder;
    Bytes out;
    for (size_t at = 0; at < input.size(); at += piece) {
      encoder.write(input.data() + at, std::min(piece, input.size() - at));
      out.insert(out.end(), encoder.output().begin(), encoder.output().end());
      encoder.output().clear();
    }
    encoder.finish();
    out.insert(out.end(), encoder.output().begin(), encoder.output().end());
    CHECK(out == whole);
  }
}

TEST_CASE("gzip stream: header, trailer and content, written as it arrives", "[gzip]") {
  for (const auto& [name, input] : sampleInputs()) {
    INFO(name);
    const Bytes gz = gzipBytes(input.data(), input.size());
    CHECK(gunzipOrFail(gz) == input);
  }
  // Through the ostream interface, in small writes and single characters.
  std::ostringstream sink;
  const std::string text = traceLikeText(3'000, 9);
  {
    GzipOStream gz(sink);
    for (size_t i = 0; i < text.size(); i += 100) gz << text.substr(i, 100);
    gz.put('!');
    CHECK(gz.finish());
    CHECK(gz.good());
    gz << "more";  // nothing may follow the trailer
    CHECK_FALSE(gz.good());
  }
  const std::string z = sink.str();
  CHECK(gunzipOrFail(Bytes(z.begin(), z.end())) == bytesOf(text + "!"));
  // Compressed bytes reach the sink before the end, not all at finish().
  std::ostringstream early;
  GzipOStream gz(early);
  const Bytes noise = randomBytes(1 << 20, 5);
  gz.write(reinterpret_cast<const char*>(noise.data()), static_cast<std::streamsize>(noise.size()));
  CHECK(early.str().size() > (512u << 10));
  CHECK(gz.finish());
}

TEST_CASE("gzip stream: a failing sink fails the stream and stays failed", "[gzip]") {
  // A sink that takes 100 KiB and then fails.
  class Limited : public std::streambuf {
   public:
    size_t taken = 0;

   protected:
    std::streamsize xsputn(const char*, std::streamsize n) override {
      if (taken + static_cast<size_t>(n) > (100u << 10)) return 0;
      taken += static_cast<size_t>(n);
      return n;
    }
    int_type overflow(int_type c) override { return xsputn("", 1) == 1 ? traits_type::not_eof(c) : traits_type::eof(); }
  } limited;
  std::ostream sink(&limited);
  GzipOStream gz(sink);
  const Bytes noise = randomBytes(1 << 20, 6);
  gz.write(reinterpret_cast<const char*>(noise.data()), static_cast<std::streamsize>(noise.size()));
  CHECK_FALSE(gz.good());
  CHECK_FALSE(sink.good());
  CHECK_FALSE(gz.finish());
}

TEST_CASE("json.gz: the Chrome JSON, compressed several times over", "[gzip][export]") {
  Trace trace;
  fillLaunchTrace(trace, 20'000);
  TempDir dir;
  const std::string prefix = (dir.path / "run").string();
  const ExportResult result = exportAll(trace, kFormatJson | kFormatJsonGz, prefix);
  CHECK(result.errors.empty());
  CHECK(result.written.size() == 2);
  const std::string json = readFile(prefix + ".json");
  const std::string gz = readFile(prefix + ".json.gz");
  const Bytes back = gunzipOrFail(Bytes(gz.begin(), gz.end()));
  CHECK(std::string(back.begin(), back.end()) == json);
  const auto parsed = nlohmann::json::parse(back.begin(), back.end());
  CHECK(parsed["traceEvents"].size() > 40'000);
  INFO("json " << json.size() << " bytes, json.gz " << gz.size() << " bytes");
  CHECK(gz.size() * 4 < json.size());

  // Alone, it writes only the .json.gz.
  TempDir other;
  const ExportResult alone = exportAll(trace, kFormatJsonGz, (other.path / "run").string());
  REQUIRE(alone.written.size() == 1);
  CHECK(alone.written[0] == (other.path / "run.json.gz").string());
  CHECK(readFile(alone.written[0]) == gz);
}

TEST_CASE("json.gz: a full disk gives an error and no file", "[gzip][export]") {
  TempDir dir;
  const fs::path target = dir.path / "trace.json.gz";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // A 64 KiB file size limit stands in for a full disk; noise does not compress.
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{64 << 10, 64 << 10};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    const Bytes noise = randomBytes(1 << 20, 8);
    const std::string error = writeFileSafely(
        target.string(),
        [&](std::ostream& out) {
          GzipOStream gz(out);
          gz.write(reinterpret_cast<const char*>(noise.data()), static_cast<std::streamsize>(noise.size()));
          gz.finish();
        },
        false);
    ::_exit(error.find("cannot write") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_FALSE(fs::exists(target));
  CHECK(fs::is_empty(dir.path));
}

// Run by CTest with CUPTITRACE_PYTHON set (tests/unit/CMakeLists.txt): a
// reader other than ours must agree.
TEST_CASE("json.gz and deflate read back by python3's gzip and zlib", "[.python]") {
  const char* python = std::getenv("CUPTITRACE_PYTHON");
  REQUIRE(python != nullptr);
  TempDir dir;
  Trace trace;
  fillLaunchTrace(trace, 5'000);
  const std::string prefix = (dir.path / "trace").string();
  REQUIRE(exportAll(trace, kFormatJson | kFormatJsonGz, prefix).errors.empty());
  int n = 0;
  for (const auto& [name, input] : sampleInputs()) {
    const std::string base = (dir.path / ("sample" + std::to_string(n++))).string();
    std::ofstream(base + ".raw", std::ios::binary).write(reinterpret_cast<const char*>(input.data()),
                                                          static_cast<std::streamsize>(input.size()));
    const Bytes gz = gzipBytes(input.data(), input.size());
    std::ofstream(base + ".gz", std::ios::binary).write(reinterpret_cast<const char*>(gz.data()),
                                                         static_cast<std::streamsize>(gz.size()));
    const Bytes z = deflateBytes(input.data(), input.size());
    std::ofstream(base + ".deflate", std::ios::binary).write(reinterpret_cast<const char*>(z.data()),
                                                              static_cast<std::streamsize>(z.size()));
  }
  const std::string script =
      "import glob, gzip, json, sys, zlib\n"
      "d = sys.argv[1]\n"
      "raw = open(d + '/trace.json', 'rb').read()\n"
      "unz = gzip.open(d + '/trace.json.gz', 'rb').read()\n"
      "assert unz == raw, 'trace.json.gz differs from trace.json'\n"
      "assert len(json.loads(unz)['traceEvents']) > 10000\n"
      "samples = sorted(glob.glob(d + '/sample*.raw'))\n"
      "assert len(samples) == " + std::to_string(n) + "\n"
      "for f in samples:\n"
      "    b = f[:-4]\n"
      "    want = open(f, 'rb').read()\n"
      "    assert gzip.decompress(open(b + '.gz', 'rb').read()) == want, b + '.gz'\n"
      "    assert zlib.decompress(open(b + '.deflate', 'rb').read(), -15) == want, b + '.deflate'\n"
      "print('python3 read', len(samples) + 1, 'files back')\n";
  std::ofstream(dir.path / "check.py") << script;
  const std::string command =
      std::string("'") + python + "' '" + (dir.path / "check.py").string() + "' '" + dir.path.string() + "'";
  CHECK(std::system(command.c_str()) == 0);
}

}  // namespace cuptitrace
