#ifndef TRIBUTARY_COMMON_RUNTIME_PARTITION_REMOTE_SENDS_H_
#define TRIBUTARY_COMMON_RUNTIME_PARTITION_REMOTE_SENDS_H_

// Whether a task's partition (what the master registers on one worker) has
// a value another task will fetch with RecvTensor.
//
// A worker must keep a step's rendezvous after its partition has finished
// only while a peer may still come for a value the partition sent; that
// happens only through _Send / _HostSend nodes that are not
// client-terminated (the master's partition by task creates them for cut
// edges; client-terminated ones answer RunGraph's recv_key, within the
// call). Without such a node, nobody can ask for the step's values later,
// so the worker can forget the step when RunGraph returns and the master
// need not send CleanupGraph after a successful step: one RPC less per step
// on the common single-worker and fan-in shapes.

#include "protos/graph.pb.h"

namespace tributary {

bool HasRemoteSends(const tensorflow::GraphDef& partition);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_PARTITION_REMOTE_SENDS_H_
