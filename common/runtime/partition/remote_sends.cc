#include "common/runtime/partition/remote_sends.h"

namespace tributary {

bool HasRemoteSends(const tensorflow::GraphDef& partition) {
  for (const tensorflow::NodeDef& node : partition.node()) {
    if (node.op() != "_Send" && node.op() != "_HostSend") continue;
    auto it = node.attr().find("client_terminated");
    const bool client_terminated = it != node.attr().end() && it->second.b();
    if (!client_terminated) return true;
  }
  // Function bodies cannot hold a cross-task _Send: the partitioner only
  // cuts edges of the top-level graph.
  return false;
}

}  // namespace tributary
