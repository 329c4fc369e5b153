#include "exporters/export_all.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include <sys/stat.h>
#include <unistd.h>

#include "core/config.h"
#include "exporters/json/chrome_json.h"
#include "exporters/csv/csv.h"
#include "core/file_output.h"
#include "core/writer_threads.h"
#include "exporters/gzip_stream.h"
#include "exporters/html/html_report.h"
#include "exporters/native/native.h"
#include "core/ordered_work.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "exporters/split_output.h"
#include "exporters/sqlite/sqlite.h"

namespace cuptitrace {
namespace {

// One output file to write; several run at once, each on its own thread.
using OutputTask = std::function<void(ExportResult&)>;

void addFile(std::vector<OutputTask>& tasks, const std::string& path,
             std::function<void(std::ostream&)> write, bool overwrite) {
  tasks.push_back([path, write = std::move(write), overwrite](ExportResult& result) {
    const std::string error = writeFileSafely(path, write, overwrite);
    if (error.empty()) result.written.push_back(path);
    else result.errors.push_back(error);
  });
}

// Writes the files of `tasks`, as many at once as there are writer threads
// (core/writer_threads.h); what each wrote or failed to write is added to
// `result` in the tasks' order, as if they had run one after the other.
void runOutputs(const std::vector<OutputTask>& tasks, ExportResult& result) {
  const unsigned threads = std::min<size_t>(writerThreads(), tasks.size());
  runInOrder<ExportResult>(
      tasks.size(), threads, tasks.size(),
      [&](unsigned, size_t i, ExportResult& r) {
        r = ExportResult{};
        tasks[i](r);
      },
      [&](size_t, ExportResult& r) {
        result.written.insert(result.written.end(), r.written.begin(), r.written.end());
        result.errors.insert(result.errors.end(), r.errors.begin(), r.errors.end());
      });
}

// The directory the prefix points into must exist and take new files; one
// message for it says more than one per output file.
bool checkDirectory(const std::string& prefix, ExportResult& result) {
  const auto slash = prefix.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : prefix.substr(0, slash));
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    result.errors.push_back("output directory " + dir + " does not exist (from CUPTITRACE_OUTPUT=" + prefix +
                            "); no trace written");
    return false;
  }
  if (!S_ISDIR(st.st_mode) || ::access(dir.c_str(), W_OK | X_OK) != 0) {
    result.errors.push_back("output directory " + dir + " is not a writable directory (from CUPTITRACE_OUTPUT=" +
                            prefix + "); no trace written");
    return false;
  }
  return true;
}

// The timeline outputs of `trace` (the whole trace or one part of it):
// JSON, json.gz, pftrace and CSV. Which optional CSV tables are written
// follows `whole`, so that every part has the same files.
void addTimelines(const Trace& trace, const Trace& whole, uint32_t formats, const std::string& prefix,
                  bool overwrite, std::vector<OutputTask>& tasks) {
  if (formats & kFormatJson) {
    addFile(tasks, prefix + ".json", [&trace](std::ostream& out) { writeChromeJson(trace, out); }, overwrite);
  }
  if (formats & kFormatJsonGz) {
    addFile(tasks, prefix + ".json.gz",
            [&trace](std::ostream& out) {
              GzipOStream gz(out);
              writeChromeJson(trace, gz);
              gz.finish();
            },
            overwrite);
  }
  if (formats & kFormatPftrace) {
    addFile(tasks, prefix + ".pftrace", [&trace](std::ostream& out) { writePerfettoProto(trace, out); },
            overwrite);
  }
  if (formats & kFormatCsv) {
    for (int k = 0; k < kRecordKindCount; ++k) {
      const auto kind = static_cast<RecordKind>(k);
      // Tables of the main kinds are always written (a header alone says "none");
      // the others only when recorded.
      const bool mainKind = kind <= RecordKind::Nvtx;
      if (csvColumns(kind).empty() || (!mainKind && whole.store.count(kind) == 0)) continue;
      addFile(tasks, prefix + "." + csvTableName(kind) + ".csv",
              [&trace, kind](std::ostream& out) { writeCsvTable(trace, kind, out, writerThreads()); }, overwrite);
    }
  }
}

}  // namespace

ExportResult exportAll(const Trace& trace, uint32_t formats, const std::string& prefix, bool overwrite,
                       uint64_t splitBytes) {
  ExportResult result;
  if (!checkDirectory(prefix, result)) return result;
  // Every file is written at once, the native trace (the most durable) first.
  std::vector<OutputTask> tasks;
  if (formats & kFormatNative) {
    addFile(tasks, prefix + ".native", [&trace](std::ostream& out) { writeNative(trace, out); }, overwrite);
  }
  // The database is never split: one file is what a SQL query wants.
  if (formats & kFormatSqlite) {
    tasks.push_back([&trace, prefix, overwrite](ExportResult& r) {
      const std::string path = prefix + ".sqlite";
      const SqliteResult written = writeSqlite(trace, path, overwrite);
      if (written.error.empty()) r.written.push_back(path);
      else r.errors.push_back(written.error);
    });
  }
  // The report page holds summaries, never split: one page of the whole run.
  if (formats & kFormatHtml) {
    HtmlOptions options;
    const auto slash = prefix.rfind('/');
    options.source = (slash == std::string::npos ? prefix : prefix.substr(slash + 1)) + ".html";
    addFile(tasks, prefix + ".html",
            [&trace, options](std::ostream& out) {
              writeHtmlReport(trace, reportOptionsFromMetadata(trace.meta), options, out);
            },
            overwrite);
  }
  const uint32_t timelines = formats & (kFormatJson | kFormatJsonGz | kFormatPftrace | kFormatCsv);
  if (splitBytes == 0 || timelines == 0) {
    addTimelines(trace, trace, timelines, prefix, overwrite, tasks);
    runOutputs(tasks, result);
    return result;
  }
  runOutputs(tasks, result);
  // After a part that could not be written the others would fail the same
  // way (a full disk): stop, and say which parts are missing.
  forEachSplitPart(trace, splitBytes, timelines, [&](const Trace& part, uint32_t number, uint32_t count) {
    const size_t errors = result.errors.size();
    std::vector<OutputTask> partTasks;
    addTimelines(part, trace, timelines, prefix + "." + std::to_string(number), overwrite, partTasks);
    runOutputs(partTasks, result);
    if (result.errors.size() == errors) return true;
    if (number < count)
      result.errors.push_back("parts " + std::to_string(number + 1) + " to " + std::to_string(count) +
                              " of the split trace not written (" + prefix + "." + std::to_string(number + 1) +
                              ".*)");
    return false;
  });
  return result;
}

uint64_t exportRoomBytes(uint32_t formats, bool reports, uint64_t records, unsigned threads) {
  // Peaks measured over the records by bench/spill_bench (10 million
  // records, 2 and 16 writer threads): the JSON +98 to +121 MiB with 2
  // threads and +306 MiB with 16 (its windows, and the pieces in flight on
  // each thread), the .pftrace +93 to +101 and +148 MiB, the reports +31 MiB
  // for 4 million records and +76 MiB for 10 million (the kernels' and the
  // calls' durations, 8 bytes a record). SQLite (spill_bench --formats
  // sqlite, 10 million records) +40 MiB with one thread, +50 with 4 and +71
  // with 16 (the output's page cache and each piece's), and with its
  // indexes +56, +128 and +214 (the sorts' lists: one more with each of
  // their threads, 8 at most).
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  const uint64_t t = std::max(1u, threads);
  uint64_t bytes = 0;
  if (formats & kFormatJson) bytes += 64 * kMiB + 16 * kMiB * t;
  if (formats & kFormatJsonGz) bytes += 64 * kMiB + 16 * kMiB * t;
  if (formats & (kFormatPftrace | kFormatHtml)) bytes += 80 * kMiB + 5 * kMiB * t;
  if (formats & kFormatSqlite)
    bytes += 48 * kMiB + 2 * kMiB * t + (sqliteIndexesSetting() ? 20 * kMiB * std::min<uint64_t>(t, 8) : 0);
  if (formats & kFormatCsv) bytes += 16 * kMiB + 2 * kMiB * t;
  // The HTML page is made of the reports, as the exit's are.
  if (reports || (formats & kFormatHtml)) bytes += 16 * kMiB + 8 * records;
  return bytes;
}

bool outputsExist(const std::string& prefix) {
  static const char* const kSuffixes[] = {".json",        ".json.gz", ".pftrace",    ".native",   ".sqlite", ".html",
                                          ".kernels.csv", ".api.csv", ".reports.txt", ".1.json",   ".1.pftrace",
                                          ".1.json.gz",   ".1.kernels.csv"};
  struct stat st {};
  for (const char* suffix : kSuffixes)
    if (::lstat((prefix + suffix).c_str(), &st) == 0) return true;
  return false;
}

std::string untakenPrefix(const std::string& prefix, uint32_t pid, std::string* message) {
  if (!outputsExist(prefix)) return prefix;
  const std::string own = prefix + "." + std::to_string(pid);
  if (outputsExist(own)) return prefix;  // the usual message names the files kept
  if (message != nullptr)
    *message = prefix + ".* exists already (another process's trace?); this trace is written as " + own +
               ".* (CUPTITRACE_OVERWRITE=1 replaces it, %p in CUPTITRACE_OUTPUT names each process's)";
  return own;
}

}  // namespace cuptitrace
