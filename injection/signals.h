// Ends by signal.
//
// Polite signals (TERM, INT, HUP, QUIT) with no handler of the program's own:
// the handler only wakes a watcher thread of ours and returns at once, so the
// thread it interrupted (inside a CUDA call, holding locks) goes on. The
// watcher writes the trace, the spill journal first, then ends the process as
// the signal would have: the exit status is the signal's. A second polite
// signal while it writes ends the process at once.
//
// Faults and abort (SEGV, BUS, FPE, ILL, ABRT): a handler the program
// installed always runs instead, and nothing of ours does. With the default
// action, the faulting thread wakes the watcher and waits (bounded) for a
// best-effort write before the default action ends the process.
//
// In a forked child they only take the signal's course: the trace is the parent's.
#pragma once

namespace cuptitrace {

// Writes the trace; runs on the watcher thread, given the signal that ends
// the process.
using SignalWriter = void (*)(int sig);

// Installs the handlers once.
void installSignalHandlers(SignalWriter writeTrace);

// Capture windows toggled by a signal: each delivery of `sig` writes one byte
// to `fd` (non-blocking) and nothing else; a handler the program had for it
// runs after. The signal no longer ends the program. In a forked child the
// byte is not written. False when the handler could not be installed.
bool installToggleSignal(int sig, int fd);

}  // namespace cuptitrace
