// The gzip stream (zlib underneath): what it writes is read back by zlib's
// inflate, and, in the test tagged [python], by Python's gzip module and zcat.
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

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
#include "exporters/json/chrome_json.h"
#include "exporters/export_all.h"
#include "core/file_output.h"
#include "exporters/gzip_stream.h"
#include "temp_dir.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using Bytes = std::vector<uint8_t>;

// Reads a whole gzip member back with zlib's inflate (a reader other than our
// writer's code), checking its framing; any error fails the test.
Bytes gunzipOrFail(const Bytes& gz) {
  REQUIRE(gz.size() >= 18);
  CHECK(gz[0] == 0x1f);
  CHECK(gz[1] == 0x8b);
  CHECK(gz[2] == 8);  // deflate
  CHECK(gz[3] == 0);  // no optional fields (no name, no comment)
  CHECK(gz[4] == 0);  // MTIME 0: the same trace gives the same bytes
  CHECK(gz[5] == 0);
  CHECK(gz[6] == 0);
  CHECK(gz[7] == 0);
  z_stream z{};
  REQUIRE(inflateInit2(&z, 15 + 16) == Z_OK);  // gzip only, no zlib or raw streams
  Bytes out;
  z.next_in = const_cast<Bytef*>(gz.data());
  z.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  std::vector<uint8_t> chunk(1 << 16);
  while (rc == Z_OK) {
    z.next_out = chunk.data();
    z.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.insert(out.end(), chunk.data(), chunk.data() + (chunk.size() - z.avail_out));
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended early
  }
  const uInt left = z.avail_in;
  inflateEnd(&z);
  INFO("inflate returned " << rc);
  REQUIRE(rc == Z_STREAM_END);  // a complete member, CRC-32 and length checked by zlib
  CHECK(left == 0);             // nothing after the trailer
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

// The inputs every round trip is tried on: empty, one byte, incompressible,
// repeats at distances near the window's 32 KiB, runs longer than a match,
// text, and inputs past the stream's 64 KiB buffers.
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
    Bytes b = randomBytes(40'000, 3);  // distance 40000: beyond the window
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
    // Runs of text and noise alternating.
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

TEST_CASE("gzip stream: header, trailer and content, written as it arrives", "[gzip]") {
  for (const auto& [name, input] : sampleInputs()) {
    INFO(name << " (" << input.size() << " bytes)");
    const Bytes gz = gzipBytes(input.data(), input.size());
    CHECK(gunzipOrFail(gz) == input);
    // Never much larger than the input (incompressible data is stored), and
    // what repeats inside the window is found.
    CHECK(gz.size() <= input.size() + input.size() / 1000 + 32);
    if (name == "30000-byte block repeated") CHECK(gz.size() < input.size() / 8);
    if (name == "one byte run 1M") CHECK(gz.size() < 4'000);
    if (name == "trace-like text 1.5M") CHECK(gz.size() * 5 < input.size());
    // The same input gives the same bytes (no time or name in the header).
    if (input.size() < 100'000) CHECK(gzipBytes(input.data(), input.size()) == gz);
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
  const std::string prefix = (dir.path() / "run").string();
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
  const ExportResult alone = exportAll(trace, kFormatJsonGz, (other.path() / "run").string());
  REQUIRE(alone.written.size() == 1);
  CHECK(alone.written[0] == (other.path() / "run.json.gz").string());
  CHECK(readFile(alone.written[0]) == gz);
}

TEST_CASE("json.gz: a full disk gives an error and no file", "[gzip][export]") {
  TempDir dir;
  const fs::path target = dir.path() / "trace.json.gz";
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
  CHECK(fs::is_empty(dir.path()));
}

// Run by CTest with CUPTITRACE_PYTHON set (tests/unit/CMakeLists.txt): readers
// other than the test's own must agree: Python's gzip module, and zcat where
// there is one.
TEST_CASE("json.gz read back by python3's gzip and by zcat", "[.python]") {
  const char* python = std::getenv("CUPTITRACE_PYTHON");
  REQUIRE(python != nullptr);
  TempDir dir;
  Trace trace;
  fillLaunchTrace(trace, 5'000);
  const std::string prefix = (dir.path() / "trace").string();
  REQUIRE(exportAll(trace, kFormatJson | kFormatJsonGz, prefix).errors.empty());
  int n = 0;
  for (const auto& [name, input] : sampleInputs()) {
    const std::string base = (dir.path() / ("sample" + std::to_string(n++))).string();
    std::ofstream(base + ".raw", std::ios::binary).write(reinterpret_cast<const char*>(input.data()),
                                                          static_cast<std::streamsize>(input.size()));
    const Bytes gz = gzipBytes(input.data(), input.size());
    std::ofstream(base + ".gz", std::ios::binary).write(reinterpret_cast<const char*>(gz.data()),
                                                         static_cast<std::streamsize>(gz.size()));
  }
  const std::string script =
      "import glob, gzip, json, shutil, subprocess, sys\n"
      "d = sys.argv[1]\n"
      "raw = open(d + '/trace.json', 'rb').read()\n"
      "unz = gzip.open(d + '/trace.json.gz', 'rb').read()\n"
      "assert unz == raw, 'trace.json.gz differs from trace.json'\n"
      "assert len(json.loads(unz)['traceEvents']) > 10000\n"
      "zcat = shutil.which('zcat')\n"
      "if zcat:\n"
      "    assert subprocess.run([zcat, d + '/trace.json.gz'], capture_output=True, check=True).stdout == raw\n"
      "samples = sorted(glob.glob(d + '/sample*.raw'))\n"
      "assert len(samples) == " + std::to_string(n) + "\n"
      "for f in samples:\n"
      "    b = f[:-4]\n"
      "    want = open(f, 'rb').read()\n"
      "    assert gzip.decompress(open(b + '.gz', 'rb').read()) == want, b + '.gz'\n"
      "    if zcat:\n"
      "        got = subprocess.run([zcat, b + '.gz'], capture_output=True, check=True).stdout\n"
      "        assert got == want, 'zcat ' + b + '.gz'\n"
      "print('python3 read', len(samples) + 1, 'files back', 'and zcat too' if zcat else '(no zcat)')\n";
  std::ofstream(dir.path() / "check.py") << script;
  const std::string command =
      std::string("'") + python + "' '" + (dir.path() / "check.py").string() + "' '" + dir.path().string() + "'";
  CHECK(std::system(command.c_str()) == 0);
}

}  // namespace cuptitrace
