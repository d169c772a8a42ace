// Ctrl-C and friends for the foreground `tributary cluster up`: SIGINT,
// SIGTERM and SIGHUP are blocked and taken synchronously, so stopping the
// cluster is ordinary code (it waits on children, writes files) rather than
// a signal handler. Block them first, before any thread exists: threads
// inherit the mask, and a signal must not land on a gRPC thread.
#ifndef TRIBUTARY_TOOLS_CLI_TERMINATION_SIGNALS_H_
#define TRIBUTARY_TOOLS_CLI_TERMINATION_SIGNALS_H_

#include "absl/time/time.h"

namespace tributary {

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread.
void BlockTerminationSignals();

// Waits up to `timeout` for one of them; returns the signal, or 0.
int WaitForTerminationSignalFor(absl::Duration timeout);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_TERMINATION_SIGNALS_H_
