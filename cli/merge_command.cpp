#include "cli/merge_command.h"

#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/trace_globs.h"
#include "core/trace.h"
#include "exporters/merge.h"
#include "exporters/native.h"

namespace cuptitrace::cli {

std::string mergeUsage() {
  return "usage: cuptitrace merge TRACE.native TRACE.native... -o OUT.json|OUT.pftrace [--overwrite]\n"
         "\n"
         "Puts saved traces (of several processes, ranks or hosts) on one timeline.\n"
         "\n"
         "  -o, --output OUT  the merged file; its name picks the format: .json (Chrome\n"
         "                    trace event JSON) or .pftrace (Perfetto protobuf)\n"
         "  --overwrite       replace OUT if it exists (otherwise an existing OUT is kept\n"
         "                    and the command fails)\n"
         "\n"
         "Every trace keeps its process, threads and GPUs; each process name says where it\n"
         "ran, e.g. \"train.py (node2:1234)\". A pid already used by an earlier trace is\n"
         "moved by a multiple of 4194304 (its original stays in the name). Times are put\n"
         "on wall-clock time by each trace's own clock offset; the merged file's metadata\n"
         "lists every input with its file, host, pid and the offset applied. Arrows are\n"
         "renumbered so they never cross traces.\n"
         "\n"
         "Ranks: processes started by torchrun, mpirun or srun come in rank order, each\n"
         "named \"[rank N] ...\" with its GPUs under it, whatever the order of the files; a\n"
         "quoted pattern ('t.*.native') is expanded. A trace with no GPU work (the\n"
         "launcher's own) is left out, and named on stderr.\n";
}

int runMerge(const std::vector<std::string>& args, std::string& out, std::string& err) {
  std::vector<std::string> inputs;
  std::string output;
  bool overwrite = false;
  auto usageError = [&](const std::string& message) {
    err += "cuptitrace merge: " + message + "\n" + mergeUsage();
    return 2;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      out += mergeUsage();
      return 0;
    } else if (arg == "--overwrite") {
      overwrite = true;
    } else if (arg == "-o" || arg == "--output") {
      if (i + 1 >= args.size()) return usageError(arg + " needs a file name");
      output = args[++i];
    } else if (arg.rfind("--output=", 0) == 0) {
      output = arg.substr(9);
    } else if (!arg.empty() && arg[0] != '-') {
      inputs.push_back(arg);
    } else {
      return usageError("unexpected argument '" + arg + "'");
    }
  }
  if (output.empty()) return usageError("no output file (-o OUT.json or -o OUT.pftrace)");
  if (inputs.empty()) return usageError("no traces to merge");
  MergeFormat format;
  if (!mergeFormatFor(output, format))
    return usageError("'" + output + "': the output's name must end in .json or .pftrace");

  std::vector<std::string> paths;
  std::string globError;
  if (!expandTraceArgs(inputs, paths, globError)) {
    err += "cuptitrace merge: " + globError + "\n";
    return 1;
  }
  std::vector<std::unique_ptr<Trace>> traces;
  std::vector<MergeSource> sources;
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      err += "cuptitrace merge: cannot open " + path + "\n";
      return 1;
    }
    traces.push_back(std::make_unique<Trace>());
    std::string error;
    if (!readNative(in, *traces.back(), error)) {
      err += "cuptitrace merge: " + path + " is not a readable cuptitrace trace: " + error + "\n";
      return 1;
    }
    sources.push_back({traces.back().get(), path});
  }
  std::vector<std::string> skipped;
  sources = orderMergeSources(std::move(sources), skipped);
  for (const std::string& s : skipped) err += "cuptitrace merge: left out " + s + "\n";
  if (sources.empty()) {
    err += "cuptitrace merge: none of the traces holds GPU work\n";
    return 1;
  }
  const MergeResult result = writeMerged(sources, output, overwrite);
  if (!result.error.empty()) {
    err += "cuptitrace merge: " + result.error + "\n";
    return 1;
  }
  out += output + "\n";
  return 0;
}

int mergeCommand(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string out, err;
  const int status = runMerge(args, out, err);
  std::fputs(out.c_str(), stdout);
  std::fputs(err.c_str(), stderr);
  return status;
}

}  // namespace cuptitrace::cli
