#include "master/registered_graph.h"

#include <atomic>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/kernel/frame_and_iter.h"
#include "common/runtime/partition/remote_sends.h"
#include "common/rendezvous/rendezvous_key.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace {

// For each fetch node, the feed nodes it reaches walking edges backwards
// (data and control), not walking through a feed (a feed has no inputs in
// the client graph anyway).
std::vector<std::vector<int>> FetchFeedDependencies(
    const Graph& g, const RewriteGraphMetadata& metadata) {
  absl::flat_hash_map<const Node*, int> feed_index;
  absl::flat_hash_map<std::string, int> feed_by_name;
  for (size_t i = 0; i < metadata.feed_node_names.size(); ++i) {
    feed_by_name[metadata.feed_node_names[i]] = static_cast<int>(i);
  }
  for (const Node* n : g.op_nodes()) {
    auto it = feed_by_name.find(n->name());
    if (it != feed_by_name.end()) feed_index[n] = it->second;
  }
  std::vector<std::vector<int>> deps;
  for (const std::string& fetch : metadata.fetch_node_names) {
    std::vector<int> found;
    const Node* start = g.FindNodeByName(fetch);
    if (start != nullptr) {
      std::vector<const Node*> stack = {start};
      absl::flat_hash_map<const Node*, bool> seen = {{start, true}};
      while (!stack.empty()) {
        const Node* n = stack.back();
        stack.pop_back();
        auto f = feed_index.find(n);
        if (f != feed_index.end()) {
          found.push_back(f->second);
          continue;
        }
        for (const Edge* e : n->in_edges()) {
          if (seen.emplace(e->src(), true).second) stack.push_back(e->src());
        }
      }
    }
    deps.push_back(std::move(found));
  }
  return deps;
}

// "a, b, c" for a log line; the first 8 names and how many more.
std::string FirstNames(const std::vector<std::string>& names) {
  constexpr size_t kShown = 8;
  if (names.size() <= kShown) return absl::StrJoin(names, ", ");
  return absl::StrCat(
      absl::StrJoin(names.begin(), names.begin() + kShown, ", "), ", ... (",
      names.size() - kShown, " more)");
}

}  // namespace

absl::StatusOr<std::shared_ptr<RegisteredGraph>> RegisteredGraph::Partition(
    const RegisteredGraphOptions& options, const StepSignature& signature) {
  TRIB_ASSIGN_OR_RETURN(
      ClientGraph client_graph,
      options.state->BuildClientGraph(signature, /*use_call_frame=*/false));

  auto out = std::shared_ptr<RegisteredGraph>(new RegisteredGraph);
  out->signature_ = signature;
  out->feed_types_ = client_graph.metadata.feed_types;
  out->fetch_types_ = client_graph.metadata.fetch_types;
  if (options.compute_fetch_dependencies) {
    out->fetch_feed_deps_ =
        FetchFeedDependencies(*client_graph.graph, client_graph.metadata);
  }

  PartitionOptions popts;
  popts.node_to_loc = SplitByTask();
  popts.new_name = options.new_name;
  const DeviceSet* devices = options.devices;
  popts.get_incarnation = [devices](const std::string& name) -> uint64_t {
    const PlacementDevice* d = devices->FindDeviceByName(name);
    return d == nullptr ? PartitionOptions::kIllegalIncarnation
                        : d->incarnation();
  };
  std::map<std::string, tensorflow::GraphDef> partitions;
  TRIB_RETURN_IF_ERROR(
      tributary::Partition(popts, client_graph.graph.get(), &partitions));

  const PlacementDevice* client = devices->client_device();
  TRIB_ASSIGN_OR_RETURN(std::string client_task, TaskNameOf(client->name()));
  for (auto& [task, gdef] : partitions) {
    WorkerPartition part;
    part.target.task = task;
    TRIB_ASSIGN_OR_RETURN(part.target.worker,
                          options.env->worker_cache->GetWorker(task));
    part.has_remote_sends = HasRemoteSends(gdef);
    part.graph_def = std::move(gdef);
    if (task == client_task) {
      out->client_partition_ = static_cast<int>(out->partitions_.size());
    }
    out->partitions_.push_back(std::move(part));
  }

  auto key = [client](const std::string& name) {
    return CreateRendezvousKey(client->name(), client->incarnation(),
                               client->name(), name, FrameAndIter(0, 0));
  };
  for (const std::string& feed : signature.feeds) {
    out->feed_keys_.push_back(key(feed));
  }
  for (const std::string& fetch : signature.fetches) {
    out->fetch_keys_.push_back(key(fetch));
  }
  // Feeds nothing uses are pruned with their _Recv (TensorFlow accepts and
  // ignores them), so only fetches need the client partition.
  if (out->client_partition_ < 0 && !signature.fetches.empty()) {
    return errors::Internal("The client device ", client->name(),
                            " holds no partition of a step with fetches");
  }
  // Once per signature: what the optimizer did and what it cost, for
  // operators wondering about a slow first step.
  spdlog::info(
      "session {}: new step signature ({} feeds, fetches [{}], {} targets): "
      "optimized: {}; {} partition(s)",
      options.session_handle, signature.feeds.size(),
      FirstNames(signature.fetches), signature.targets.size(),
      client_graph.optimization.Summary(), out->partitions_.size());
  return out;
}

absl::StatusOr<std::shared_ptr<RegisteredGraph>> RegisteredGraph::Create(
    const RegisteredGraphOptions& options, const StepSignature& signature) {
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<RegisteredGraph> graph,
                        Partition(options, signature));
  TRIB_RETURN_IF_ERROR(graph->Register(options));
  return graph;
}

absl::Status RegisteredGraph::Register(const RegisteredGraphOptions& options) {
  using Group = WorkerCallGroup<tensorflow::RegisterGraphRequest,
                                tensorflow::RegisterGraphResponse>;
  Group group;
  for (const WorkerPartition& part : partitions_) {
    Group::Call* call = group.Add(part.target.task, part.target.worker);
    call->request.set_session_handle(options.session_handle);
    call->request.set_create_worker_session_called(true);
    *call->request.mutable_graph_def() = part.graph_def;
    *call->request.mutable_graph_options() = options.config.graph_options();
    *call->request.mutable_config_proto() = options.config;
  }
  // A registration that completes after the master gave up on it (deadline)
  // is deregistered by its own callback; each call counts as a background
  // call until then, so shutdown waits for it.
  struct Abandon {
    explicit Abandon(size_t n) : claimed(n) {}
    std::atomic<bool> abandoned{false};
    // Whoever claims a call first deregisters it: exactly once.
    std::vector<std::atomic<bool>> claimed;
  };
  auto abandon = std::make_shared<Abandon>(group.size());
  const DetachedCallEnv late_env = options.env->detached();
  const std::string session_handle = options.session_handle;
  for (size_t i = 0; i < group.size(); ++i) late_env.background->Add();
  group.Start(options.deadline, StartRegisterGraph,
              [abandon, late_env, session_handle](
                  size_t i, const absl::Status& s, Group::Call& call) {
                if (s.ok() && abandon->abandoned.load() &&
                    !abandon->claimed[i].exchange(true)) {
                  DeregisterGraphAsync(
                      late_env, TaskWorker{call.task, call.worker},
                      session_handle, call.response.graph_handle());
                }
                late_env.background->Done();
              });
  const bool all_done = group.WaitAll(options.deadline);

  absl::Status first;
  for (size_t i : group.completion_order()) {
    absl::Status s = group.status(i, absl::OkStatus());
    if (s.ok() || !first.ok()) continue;
    const std::string& task = partitions_[i].target.task;
    first = absl::StrContains(s.message(), task)
                ? s
                : errors::Create(s.code(), s.message(),
                                 " (RegisterGraph on ", task, ")");
  }
  if (first.ok() && !all_done) {
    std::vector<std::string> late;
    for (size_t i = 0; i < group.size(); ++i) {
      if (!group.done(i)) late.push_back(options.env->DescribeTask(
          partitions_[i].target.task));
    }
    first = errors::DeadlineExceeded(
        "RegisterGraph did not complete before the step's deadline on ",
        absl::StrJoin(late, ", "));
  }
  if (!first.ok()) {
    // What did register must not linger on the workers: calls done now are
    // deregistered here, later ones by their callback (which sees the flag,
    // set first); `claimed` makes it exactly once when both see a call.
    abandon->abandoned.store(true);
    group.CancelAll();
    for (size_t i = 0; i < group.size(); ++i) {
      if (group.done(i) && group.status(i, absl::OkStatus()).ok() &&
          !abandon->claimed[i].exchange(true)) {
        DeregisterGraphAsync(late_env, partitions_[i].target,
                             options.session_handle,
                             group.call(i).response.graph_handle());
      }
    }
    return first;
  }
  for (size_t i = 0; i < group.size(); ++i) {
    partitions_[i].graph_handle = group.call(i).response.graph_handle();
  }
  return absl::OkStatus();
}

std::vector<TaskWorker> RegisteredGraph::workers() const {
  std::vector<TaskWorker> out;
  for (const WorkerPartition& p : partitions_) out.push_back(p.target);
  return out;
}

std::vector<TaskWorker> RegisteredGraph::workers_with_remote_sends() const {
  std::vector<TaskWorker> out;
  for (const WorkerPartition& p : partitions_) {
    if (p.has_remote_sends) out.push_back(p.target);
  }
  return out;
}

void RegisteredGraph::DeregisterAsync(const MasterEnv& env,
                                      const std::string& session_handle) const {
  for (const WorkerPartition& p : partitions_) {
    if (!p.graph_handle.empty()) {
      DeregisterGraphAsync(env.detached(), p.target, session_handle,
                           p.graph_handle);
    }
  }
}

}  // namespace tributary
