// How the process is ending, as the code that writes the trace sees it.
#pragma once

#include <cstdint>

namespace cuptitrace {

enum class EndingKind : uint8_t {
  // exit(), a return from main, Python's own end: the exit handlers run.
  Exit,
  // A signal whose default action ends the process, sent to it: the
  // watcher writes, then ends the process with the signal's default action.
  Signal,
  // A fault, abort(), or a signal tied to the call that raised it (SIGPIPE
  // after a write to a broken pipe, SIGXFSZ): the thread it hit waits for
  // the write, then ends the process with the signal's default action.
  Fault,
  // _exit(), _Exit(), quick_exit(): no exit handler runs.
  ExitCall,
  // exec: the process becomes another program.
  Exec,
};

struct Ending {
  EndingKind kind = EndingKind::Exit;
  int sig = 0;                  // Signal and Fault: the signal
  const char* call = nullptr;   // ExitCall and Exec: the call ("_exit", "execve")
};

// Every ending but a normal exit may be cut short (a grace period's
// SIGKILL, a process replaced): the trace is made durable first.
inline bool writesDurableFirst(const Ending& e) { return e.kind != EndingKind::Exit; }

}  // namespace cuptitrace
