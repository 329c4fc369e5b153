// The ways out of a process that skip exit handlers, and the program's signal
// calls, redirected to the tracer (injection/got_patch.h):
//
// - _exit() and _Exit() (os._exit in Python, multiprocessing's workers, many
//   launchers and test runners): the trace is written first, by the watcher
//   thread, while the calling thread waits (bounded); then the process ends
//   with the status asked for. In a forked or vforked child: nothing.
// - quick_exit(): the same, through at_quick_exit().
// - execve(), execv(), execvp(), execvpe(): exec replaces the process without
//   exit handlers; the trace is written first (a vforked or forked child's
//   exec, as subprocess does it, is left alone: the trace is the parent's).
// - sigaction() and signal() for the polite signals: the program's view
//   (injection/signal_view.h), so the tracer's handler stays installed.
#pragma once

namespace cuptitrace {

// Once, after the signal handlers are installed. Says at debug level how many
// objects' calls now reach the tracer.
void redirectExitCalls();

}  // namespace cuptitrace
