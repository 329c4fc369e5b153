#include "cli/merge_command.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/command_line.h"
#include "cli/trace_globs.h"
#include "core/trace.h"
#include "core/writer_threads.h"
#include "exporters/merge.h"
#include "exporters/native/native.h"
#include "core/ordered_work.h"

namespace cuptitrace::cli {

namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output, overwrite;
};

Command mergeForm(MergeArgs& a) {
  Command c;
  c.name = "cuptitrace merge";
  c.usage = "usage: cuptitrace merge TRACE.native TRACE.native... -o OUT.json|OUT.pftrace|OUT.sqlite [--overwrite]\n";
  c.about = "Puts saved traces (of several processes, ranks or hosts) on one timeline.";
  c.options = {
      {"-o,--output", "OUT",
       "the merged file; its name picks the format: .json (Chrome\ntrace event JSON), .pftrace (Perfetto "
       "protobuf) or .sqlite\n(one database in Nsight Systems' export schema, each row\nkeeping its process's "
       "globalPid)",
       &a.output},
      {"--overwrite", "",
       "replace OUT if it exists (otherwise an existing OUT is kept\nand the command fails)", &a.overwrite},
  };
  c.positionalName = "TRACE.native";
  c.positionalHelp = "the saved traces to put on one timeline";
  c.positionals = &a.inputs;
  c.footer =
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
      "launcher's own) is left out, and named on stderr.";
  return c;
}

}  // namespace

std::string mergeOptionWords() {
  MergeArgs a;
  return optionWords(mergeForm(a));
}

std::string mergeUsage() {
  MergeArgs a;
  return commandHelp(mergeForm(a));
}

int runMerge(const std::vector<std::string>& args, std::string& out, std::string& err) {
  MergeArgs a;
  const Command command = mergeForm(a);
  const int parsed = parseCommand(command, args, out, err);
  if (parsed != kParsed) return parsed;
  auto usageError = [&](const std::string& message) {
    err += cli::usageError(command, message);
    return 2;
  };
  const std::vector<std::string>& inputs = a.inputs;
  const std::string& output = a.output;
  const bool overwrite = flagIsOn(a.overwrite);
  if (output.empty()) return usageError("no output file (-o OUT.json, -o OUT.pftrace or -o OUT.sqlite)");
  if (inputs.empty()) return usageError("no traces to merge");
  MergeFormat format;
  if (!mergeFormatFor(output, format))
    return usageError("'" + output + "': the output's name must end in .json, .pftrace or .sqlite");

  std::vector<std::string> paths;
  std::string globError;
  if (!expandTraceArgs(inputs, paths, globError)) {
    err += "cuptitrace merge: " + globError + "\n";
    return 1;
  }
  // The inputs are read at once, a writer thread each (core/writer_threads.h);
  // the first that cannot be read is named.
  std::vector<std::unique_ptr<Trace>> traces(paths.size());
  std::vector<std::string> errors(paths.size());
  runInOrder<int>(
      paths.size(), static_cast<unsigned>(std::min<size_t>(writerThreads(), paths.size())), paths.size(),
      [&](unsigned, size_t i, int&) {
        std::ifstream in(paths[i], std::ios::binary);
        if (!in) {
          errors[i] = "cannot open " + paths[i];
          return;
        }
        traces[i] = std::make_unique<Trace>();
        std::string error;
        if (!readNative(in, *traces[i], error))
          errors[i] = paths[i] + " is not a readable cuptitrace trace: " + error;
      },
      [](size_t, int&) {});
  std::vector<MergeSource> sources;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!errors[i].empty()) {
      err += "cuptitrace merge: " + errors[i] + "\n";
      return 1;
    }
    sources.push_back({traces[i].get(), paths[i]});
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
