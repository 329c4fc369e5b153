// The C library calls of the program redirected to the tracer
// (injection/got_patch.h), in every object loaded when tracing starts:
//
// - The ways out of a process that skip exit handlers. _exit() and _Exit()
//   (os._exit in Python, multiprocessing's workers, many launchers and test
//   runners): the trace is written first, by the watcher thread, while the
//   calling thread waits; then the process ends with the status asked for.
//   quick_exit(): the same, through at_quick_exit(). exec and its kin:
//   injection/exec_calls.h. In a forked or vforked child: nothing.
// - The program's signal calls: sigaction(), signal(), bsd_signal(),
//   sysv_signal(), sigset() and siginterrupt() for the signals the tracer
//   answers go to the program's view (injection/signal_view.h), so the
//   tracer's handler stays installed.
#pragma once

namespace cuptitrace {

// Once, after the signal handlers are installed. Says at debug level how many
// objects' calls now reach the tracer, and at info level which could not.
void redirectProgramCalls();

}  // namespace cuptitrace
