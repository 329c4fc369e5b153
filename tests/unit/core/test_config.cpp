#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "core/config.h"
#include "core/parse.h"

using namespace cuptitrace;

TEST_CASE("parse: strict integers and sizes") {
  CHECK(parseUint("42") == 42u);
  CHECK_FALSE(parseUint("12abc"));
  CHECK_FALSE(parseUint(""));
  CHECK_FALSE(parseUint("-1"));
  CHECK_FALSE(parseUint("99999999999999999999999"));
  CHECK(parseSize("8M") == (8u << 20));
  CHECK(parseSize("64KiB") == (64u << 10));
  CHECK_FALSE(parseSize("8X"));
  CHECK_FALSE(parseSize("M"));
  CHECK(formatSize(8u << 20) == "8M");
  CHECK(parseBool("Yes") == true);
  CHECK(parseBool("off") == false);
  CHECK_FALSE(parseBool("maybe"));
}

namespace {

// Parses with only `name=value` set.
Config parseOne(const std::string& name, const char* value, std::vector<std::string>& messages) {
  return parseConfig([&](const char* n) { return name == n ? value : nullptr; }, messages);
}

const ConfigVar& var(const std::string& name) {
  for (const auto& v : configTable())
    if (name == v.name) return v;
  FAIL("no variable " << name);
  return configTable().front();
}

}  // namespace

TEST_CASE("config: every default in the table is accepted by its own parser") {
  for (const auto& v : configTable()) {
    Config c;
    INFO(v.name);
    CHECK(v.apply(v.defaultValue, c));
    CHECK(std::string(v.name).rfind("CUPTITRACE_", 0) == 0);
    CHECK(std::string(v.help).size() > 10);
    CHECK(std::string(v.accepted).size() > 3);
  }
}

TEST_CASE("config: nothing set gives the documented defaults") {
  std::vector<std::string> messages;
  const Config c = parseConfig([](const char*) { return nullptr; }, messages);
  CHECK(messages.empty());
  CHECK(c.activities == kActivityDefault);
  CHECK(c.formats == kFormatJson);
  CHECK(c.output == "cuptitrace-%h-%p");
  CHECK(c.bufferSize == (8u << 20));
  CHECK(c.maxMemory == (512ull << 20));
  CHECK_FALSE(c.quiet);
  CHECK(c.summary == SummaryMode::Stderr);
  CHECK(c.stepRange.empty());
  CHECK(c.coverageBasisPoints == 9000);
  CHECK(c.splitBytes == 0);
}

TEST_CASE("config: good values of every variable") {
  struct Case {
    const char* name;
    const char* value;
  };
  const Case cases[] = {
      {"CUPTITRACE_ACTIVITIES", "kernel,memcpy"}, {"CUPTITRACE_ACTIVITIES", " Kernel , NVTX "},
      {"CUPTITRACE_ACTIVITIES", "all"},           {"CUPTITRACE_ACTIVITIES", "default,driver"},
      {"CUPTITRACE_FORMAT", "json,csv,native"},   {"CUPTITRACE_OUTPUT", "/tmp/run-%p"},
      {"CUPTITRACE_LOG_LEVEL", "debug"},          {"CUPTITRACE_BUFFER_SIZE", "64K"},
      {"CUPTITRACE_BUFFER_SIZE", "256M"},         {"CUPTITRACE_BUFFER_POOL", "1"},
      {"CUPTITRACE_BUFFER_MEMORY", "16G"},           {"CUPTITRACE_MAX_MEMORY", "2G"},
      {"CUPTITRACE_QUIET", "yes"},            {"CUPTITRACE_OVERWRITE", "1"},
      {"CUPTITRACE_SUMMARY", "file"},             {"CUPTITRACE_SUMMARY", "none"},
      {"CUPTITRACE_SUMMARY", "Stderr"},           {"CUPTITRACE_STEP_RANGE", "ProfilerStep"},
      {"CUPTITRACE_STEP_RANGE", ""},              {"CUPTITRACE_STEP_RANGE", "train step, phase 1"},
      {"CUPTITRACE_COVERAGE", "90"},              {"CUPTITRACE_COVERAGE", "99.5"},
      {"CUPTITRACE_COVERAGE", "99.95"},           {"CUPTITRACE_COVERAGE", "100"},
      {"CUPTITRACE_COVERAGE", "1"},
      {"CUPTITRACE_OUTPUT", "run-%q{OMPI_COMM_WORLD_RANK}-%n"}, {"CUPTITRACE_CAPTURE", "profiler"},
      {"CUPTITRACE_CAPTURE", "nvtx:step@10-12"},  {"CUPTITRACE_CAPTURE", "time:10s+2s"},
      {"CUPTITRACE_CAPTURE", "signal:USR1"},      {"CUPTITRACE_KERNEL_INCLUDE", "gemm|conv"},
      {"CUPTITRACE_KERNEL_EXCLUDE", "^void at::"},
  };
  for (const auto& c : cases) {
    INFO(c.name << "=" << c.value);
    std::vector<std::string> messages;
    parseOne(c.name, c.value, messages);
    CHECK(messages.empty());
  }
  std::vector<std::string> messages;
  CHECK(parseOne("CUPTITRACE_ACTIVITIES", "kernel,driver", messages).activities ==
        (kActivityKernel | kActivityDriver));
  CHECK(parseOne("CUPTITRACE_ACTIVITIES", "all", messages).activities == kActivityAll);
  CHECK(parseOne("CUPTITRACE_FORMAT", "csv,native", messages).formats == (kFormatCsv | kFormatNative));
  CHECK(parseOne("CUPTITRACE_BUFFER_SIZE", "1M", messages).bufferSize == (1u << 20));
  CHECK(parseOne("CUPTITRACE_QUIET", "on", messages).quiet);
  CHECK(parseOne("CUPTITRACE_OVERWRITE", "true", messages).overwrite);
  CHECK_FALSE(parseOne("CUPTITRACE_OVERWRITE", "0", messages).overwrite);
  CHECK(parseOne("CUPTITRACE_SUMMARY", "file", messages).summary == SummaryMode::File);
  CHECK(parseOne("CUPTITRACE_SUMMARY", "none", messages).summary == SummaryMode::None);
  CHECK(parseOne("CUPTITRACE_STEP_RANGE", "ProfilerStep", messages).stepRange == "ProfilerStep");
  CHECK(parseOne("CUPTITRACE_COVERAGE", "99.5", messages).coverageBasisPoints == 9950);
  CHECK(parseOne("CUPTITRACE_COVERAGE", "99.95", messages).coverageBasisPoints == 9995);
  CHECK(parseOne("CUPTITRACE_COVERAGE", "100", messages).coverageBasisPoints == 10000);
  CHECK(parseOne("CUPTITRACE_CAPTURE", "nvtx:step@10-12", messages).capture.last == 12);
  CHECK(parseOne("CUPTITRACE_KERNEL_EXCLUDE", "gemm", messages).kernelExclude == "gemm");
  CHECK(messages.empty());
}

TEST_CASE("config: capture windows, kernel filters and output templates refuse what they cannot use") {
  std::vector<std::string> messages;
  CHECK(parseOne("CUPTITRACE_KERNEL_INCLUDE", "gemm(", messages).kernelInclude.empty());
  CHECK(parseOne("CUPTITRACE_KERNEL_EXCLUDE", "[a-", messages).kernelExclude.empty());
  CHECK(parseOne("CUPTITRACE_CAPTURE", "nvtx:step@0", messages).capture.mode == CaptureMode::All);
  CHECK(parseOne("CUPTITRACE_CAPTURE", "signal:TERM", messages).capture.mode == CaptureMode::All);
  CHECK(parseOne("CUPTITRACE_OUTPUT", "run-%t", messages).output == "cuptitrace-%h-%p");
  CHECK(parseOne("CUPTITRACE_OUTPUT", "run-%q{RANK", messages).output == "cuptitrace-%h-%p");
  CHECK(messages.size() == 6);
}

TEST_CASE("config: bad values of every variable give one message and the default") {
  const std::string longValue(5000, 'x');
  const char* bad[] = {"", "-1", "12abc", "99999999999999999999999", "maybe", "kernel,,bogus", longValue.c_str()};
  // Variables that take free text accept most of these: only the values listed are bad for them.
  // An output prefix may be almost any text; a step range is any range name, or empty for none.
  const std::map<std::string, std::set<std::string>> freeText = {
      {"CUPTITRACE_OUTPUT", {"", longValue}},
      {"CUPTITRACE_STEP_RANGE", {longValue}},
      {"CUPTITRACE_KERNEL_INCLUDE", {longValue}},
      {"CUPTITRACE_KERNEL_EXCLUDE", {longValue}},
      {"CUPTITRACE_GPU_METRICS_LIST", {"-1", longValue}},
  };
  for (const auto& v : configTable()) {
    for (const char* value : bad) {
      const auto onlyBad = freeText.find(v.name);
      if (onlyBad != freeText.end() && onlyBad->second.count(value) == 0) continue;
      INFO(v.name << "=" << value);
      std::vector<std::string> messages;
      const Config got = parseOne(v.name, value, messages);
      REQUIRE(messages.size() == 1);
      CHECK_THAT(messages[0], Catch::Contains(v.name));
      CHECK_THAT(messages[0], Catch::Contains(v.accepted));
      CHECK_THAT(messages[0], Catch::Contains(std::string("using the default \"") + v.defaultValue));
      CHECK(messages[0].find('\n') == std::string::npos);
      CHECK(messages[0].size() < 600);  // a huge value is cut short in the message
      // The setting is the default.
      std::vector<std::string> none;
      const Config defaults = parseConfig([](const char*) { return nullptr; }, none);
      CHECK(describeConfig(got) == describeConfig(defaults));
    }
  }
}

TEST_CASE("config: ranges are enforced") {
  std::vector<std::string> messages;
  parseOne("CUPTITRACE_BUFFER_SIZE", "1K", messages);
  parseOne("CUPTITRACE_BUFFER_SIZE", "1G", messages);
  parseOne("CUPTITRACE_BUFFER_POOL", "0", messages);
  parseOne("CUPTITRACE_BUFFER_MEMORY", "512K", messages);
  parseOne("CUPTITRACE_MAX_MEMORY", "1K", messages);
  CHECK(messages.size() == 5);
  messages.clear();
  for (const char* value : {"0", "0.99", "101", "100.01", "90.123", ".5", "90.", "9e1", " 90", "90%", "1000"})
    parseOne("CUPTITRACE_COVERAGE", value, messages);
  CHECK(messages.size() == 11);
  messages.clear();
  parseOne("CUPTITRACE_STEP_RANGE", "step\nrange", messages);
  parseOne("CUPTITRACE_STEP_RANGE", std::string(300, 's').c_str(), messages);
  parseOne("CUPTITRACE_SUMMARY", "stderr,file", messages);
  parseOne("CUPTITRACE_SUMMARY", "stdout", messages);
  CHECK(messages.size() == 4);
}

TEST_CASE("config: unknown CUPTITRACE_ variables are named, with a suggestion") {
  const char* env[] = {"PATH=/bin", "CUPTITRACE_FORMATS=csv", "CUPTITRACE_FORMAT=json", "CUPTITRACE_ZZZZZZZZZZZZZZZ=1",
                       nullptr};
  const auto messages = unknownVariableMessages(env);
  REQUIRE(messages.size() == 2);
  CHECK_THAT(messages[0], Catch::Contains("CUPTITRACE_FORMATS") && Catch::Contains("did you mean CUPTITRACE_FORMAT?"));
  CHECK_THAT(messages[1], Catch::Contains("CUPTITRACE_ZZZZZZZZZZZZZZZ"));
  CHECK_THAT(messages[1], !Catch::Contains("did you mean"));
}

TEST_CASE("config: the effective configuration names every variable") {
  std::vector<std::string> messages;
  const auto described = describeConfig(parseOne("CUPTITRACE_ACTIVITIES", "kernel,nvtx", messages));
  REQUIRE(described.size() == configTable().size());
  for (size_t i = 0; i < described.size(); ++i) CHECK(described[i].first == configTable()[i].name);
  CHECK(described[0].second == "kernel,nvtx");
  // What describeConfig writes parses back to the same configuration.
  for (const auto& [name, value] : described) {
    Config c;
    INFO(name << "=" << value);
    CHECK(var(name).apply(value, c));
  }
}

TEST_CASE("config: CUPTITRACE_SPLIT takes 0, off or a size between 1M and 1T") {
  struct Good {
    const char* value;
    uint64_t bytes;
  };
  for (const Good& g : {Good{"0", 0}, Good{"off", 0}, Good{" OFF ", 0}, Good{"1M", 1ull << 20},
                        Good{"100M", 100ull << 20}, Good{"1G", 1ull << 30}, Good{"1536MiB", 1536ull << 20},
                        Good{"1T", 1ull << 40}, Good{"1048576", 1ull << 20}}) {
    INFO(g.value);
    std::vector<std::string> messages;
    CHECK(parseOne("CUPTITRACE_SPLIT", g.value, messages).splitBytes == g.bytes);
    CHECK(messages.empty());
  }
  const std::string longNumber = std::string(4000, '9') + "M";
  const std::string longText(10000, 'G');
  for (const char* value : {"", " ", "-1", "-100M", "1K", "1023K", "1048575", "2T", "1P", "18446744073709551615",
                            "99999999999999999999G", "1.5G", "100X", "100 M", "M", "abc", "on", "yes", "none",
                            "auto", "1G,2G", longNumber.c_str(), longText.c_str()}) {
    INFO(value);
    std::vector<std::string> messages;
    CHECK(parseOne("CUPTITRACE_SPLIT", value, messages).splitBytes == 0);
    REQUIRE(messages.size() == 1);
    CHECK_THAT(messages[0], Catch::Contains("CUPTITRACE_SPLIT") && Catch::Contains("between 1M and 1T"));
    CHECK(messages[0].size() < 600);
  }
  std::vector<std::string> messages;
  const Config c = parseOne("CUPTITRACE_SPLIT", "256M", messages);
  const auto described = describeConfig(c);
  CHECK(std::count(described.begin(), described.end(), std::make_pair(std::string("CUPTITRACE_SPLIT"),
                                                                        std::string("256M"))) == 1);
}

TEST_CASE("config: json.gz is a format of its own") {
  std::vector<std::string> messages;
  CHECK(parseOne("CUPTITRACE_FORMAT", "json.gz", messages).formats == kFormatJsonGz);
  CHECK(parseOne("CUPTITRACE_FORMAT", "json.gz,csv", messages).formats == (kFormatJsonGz | kFormatCsv));
  CHECK(parseOne("CUPTITRACE_FORMAT", "JSON.GZ, json", messages).formats == (kFormatJsonGz | kFormatJson));
  CHECK(messages.empty());
  CHECK(formatNames(kFormatJson | kFormatJsonGz) == "json,json.gz");
  parseOne("CUPTITRACE_FORMAT", "json.gzip", messages);
  parseOne("CUPTITRACE_FORMAT", "gz", messages);
  CHECK(messages.size() == 2);
}

TEST_CASE("config: the Python start-up hook's variables") {
  std::vector<std::string> messages;
  auto with = [&](const char* name, const char* value) {
    messages.clear();
    return parseConfig([&](const char* n) { return std::string(name) == n ? value : nullptr; }, messages);
  };
  CHECK(with("CUPTITRACE_PYTORCH", "ops").pytorch == PytorchMode::Ops);
  CHECK(with("CUPTITRACE_PYTORCH", "shapes").pytorch == PytorchMode::Shapes);
  CHECK(with("CUPTITRACE_PYTORCH", "off").pytorch == PytorchMode::Off);
  CHECK(with("CUPTITRACE_PYTORCH", "all").pytorch == PytorchMode::Off);
  CHECK(messages.size() == 1);
  CHECK(with("CUPTITRACE_PYTHON_BACKTRACE", "on").pythonBacktrace);
  CHECK(with("CUPTITRACE_PYTHON_BACKTRACE_DEPTH", "64").pythonBacktraceDepth == 64);
  CHECK(with("CUPTITRACE_PYTHON_BACKTRACE_DEPTH", "0").pythonBacktraceDepth == 3);
  CHECK(messages.size() == 1);
  CHECK(with("CUPTITRACE_PYTHON_BACKTRACE_DEPTH", "65").pythonBacktraceDepth == 3);
}
