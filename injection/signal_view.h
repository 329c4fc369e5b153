// The program's own view of the signals the tracer answers.
//
// For the signals whose default action ends the process (and the capture
// toggle) the tracer's handler stays installed for the whole run, whatever
// the program does later: a program that resets SIGINT to SIG_DFL and
// raises it again (CPython after a KeyboardInterrupt, many C programs and
// shells) must still leave its trace. So the program's calls to
// sigaction(), signal(), sigset() and siginterrupt() for those signals are
// redirected here (injection/redirected_calls.cpp): they change what the
// program sees and what the tracer's handler does on its behalf, not the
// handler the kernel runs. A disposition of SIG_IGN goes to the kernel as it
// is (an ignored signal stays ignored across exec, as the program expects).
#pragma once

#include <signal.h>

namespace cuptitrace::signal_view {

// How the tracer's handler is installed for the program's disposition
// `program`: the program's mask and its SA_RESTART, SA_NODEFER and
// SA_ONSTACK (SA_RESETHAND is done by the handler, which must stay).
using Installer = struct sigaction (*)(int sig, const struct sigaction& program);

// From now on `sig` is the tracer's, installed by `installer` (each signal
// keeps its own: the capture toggle is not an ending): `program` is what
// the program had. A signal tracked already keeps its first installer.
void track(int sig, const struct sigaction& program, Installer installer);
bool tracked(int sig);

// The program's disposition of a tracked signal. Async-signal-safe.
struct sigaction current(int sig);
// A handler of its own (neither SIG_DFL nor SIG_IGN).
bool hasOwnHandler(const struct sigaction& a);

// The program's handler is about to run: when it was installed with
// SA_RESETHAND (one-shot), its disposition becomes SIG_DFL now, as the
// kernel would have made it. Async-signal-safe.
void resetIfOneShot(int sig);

// sigaction(), signal(), sigset() and siginterrupt() as the program sees
// them (redirected to here).
int programSigaction(int sig, const struct sigaction* act, struct sigaction* old);
sighandler_t programSignal(int sig, sighandler_t handler);
sighandler_t programSysvSignal(int sig, sighandler_t handler);  // sysv_signal(), ISO C's signal()
sighandler_t programSigset(int sig, sighandler_t disposition);
int programSiginterrupt(int sig, int interrupt);

}  // namespace cuptitrace::signal_view
