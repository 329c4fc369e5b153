#include "exporters/export_all.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include <sys/stat.h>
#include <unistd.h>

#include "core/config.h"
#include "exporters/chrome_json.h"
#include "exporters/csv.h"
#include "exporters/file_output.h"
#include "exporters/native.h"
#include "exporters/perfetto_proto.h"

namespace cuptitrace {
namespace {

void writeFile(const std::string& path, const std::function<void(std::ostream&)>& write, bool overwrite,
               ExportResult& result) {
  const std::string error = writeFileSafely(path, write, overwrite);
  if (error.empty()) result.written.push_back(path);
  else result.errors.push_back(error);
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

}  // namespace

ExportResult exportAll(const Trace& trace, uint32_t formats, const std::string& prefix, bool overwrite) {
  ExportResult result;
  if (!checkDirectory(prefix, result)) return result;
  if (formats & kFormatNative) {
    writeFile(prefix + ".native", [&](std::ostream& out) { writeNative(trace, out); }, overwrite, result);
  }
  if (formats & kFormatJson) {
    writeFile(prefix + ".json", [&](std::ostream& out) { writeChromeJson(trace, out); }, overwrite, result);
  }
  if (formats & kFormatPftrace) {
    writeFile(prefix + ".pftrace", [&](std::ostream& out) { writePerfettoProto(trace, out); }, overwrite, result);
  }
  if (formats & kFormatCsv) {
    for (int k = 0; k < kRecordKindCount; ++k) {
      const auto kind = static_cast<RecordKind>(k);
      // Tables of the main kinds are always written (a header alone says "none");
      // the others only when recorded.
      const bool mainKind = kind <= RecordKind::Nvtx;
      if (csvColumns(kind).empty() || (!mainKind && trace.store.count(kind) == 0)) continue;
      writeFile(prefix + "." + csvTableName(kind) + ".csv",
                [&](std::ostream& out) { writeCsvTable(trace, kind, out); }, overwrite, result);
    }
  }
  return result;
}

}  // namespace cuptitrace
