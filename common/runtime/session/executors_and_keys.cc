#include "common/runtime/session/executors_and_keys.h"

#include <map>
#include <utility>

#include "common/device/device.h"
#include "common/framework/status.h"
#include "common/graph/graph_def_import.h"
#include "common/op/op_registry.h"
#include "common/device/device_mgr.h"

namespace tributary {

absl::StatusOr<std::unique_ptr<ExecutorsAndKeys>> BuildExecutorsAndKeys(
    const BuildExecutorsOptions& options, const StepSignature& signature) {
  TRIB_ASSIGN_OR_RETURN(
      ClientGraph client_graph,
      options.state->BuildClientGraph(signature, options.use_call_frame));

  PartitionOptions popts;
  popts.node_to_loc = SplitByDevice();
  popts.new_name = options.new_name;
  const DeviceSet* devices = options.device_set;
  popts.get_incarnation = [devices](const std::string& name) -> uint64_t {
    const PlacementDevice* d = devices->FindDeviceByName(name);
    return d == nullptr ? PartitionOptions::kIllegalIncarnation
                        : d->incarnation();
  };
  std::map<std::string, tensorflow::GraphDef> partitions;
  TRIB_RETURN_IF_ERROR(Partition(popts, client_graph.graph.get(), &partitions));

  auto result = std::make_unique<ExecutorsAndKeys>();
  result->feed_types = client_graph.metadata.feed_types;
  result->fetch_types = client_graph.metadata.fetch_types;
  result->fetch_names = signature.fetches;
  result->use_call_frame = options.use_call_frame;
  if (!options.use_call_frame) {
    const PlacementDevice* client = devices->client_device();
    auto key = [client](const std::string& name) {
      return ParseRendezvousKey(
          CreateRendezvousKey(client->name(), client->incarnation(),
                              client->name(), name, FrameAndIter(0, 0)));
    };
    for (const std::string& feed : signature.feeds) {
      TRIB_ASSIGN_OR_RETURN(RendezvousParsedKey k, key(feed));
      result->feed_keys.push_back(std::move(k));
    }
    for (const std::string& fetch : signature.fetches) {
      TRIB_ASSIGN_OR_RETURN(RendezvousParsedKey k, key(fetch));
      result->fetch_keys.push_back(std::move(k));
    }
  }
  for (auto& [location, gdef] : partitions) {
    PartitionExecutor item;
    TRIB_ASSIGN_OR_RETURN(item.device,
                          options.device_mgr->LookupDevice(location));
    // Partitions hold the runtime's own nodes (_Arg, _Send, ...).
    GraphConstructorOptions copts;
    copts.allow_internal_ops = true;
    Graph graph(OpRegistry::Global());
    TRIB_RETURN_IF_ERROR(ConvertGraphDefToGraph(copts, gdef, &graph));
    for (Node* n : graph.op_nodes()) {
      n->set_assigned_device_name(item.device->name());
    }
    LocalExecutorParams params;
    params.device = item.device;
    params.resource_mgr = options.resource_mgr;
    TRIB_ASSIGN_OR_RETURN(item.executor, NewLocalExecutor(params, graph));
    item.graph_def = std::move(gdef);
    result->items.push_back(std::move(item));
  }
  return result;
}

}  // namespace tributary
