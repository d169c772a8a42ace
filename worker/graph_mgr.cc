#include "worker/graph_mgr.h"

#include <map>
#include <utility>

#include "absl/strings/str_format.h"
#include "common/framework/status.h"
#include "common/graph/graph.h"
#include "common/graph/graph_def_import.h"
#include "common/op/op_registry.h"
#include "common/resource/step_container.h"
#include "common/runtime/executor/executor_barrier.h"
#include "common/runtime/partition/remote_sends.h"
#include "common/runtime/placement/kernel_support.h"
#include "worker/worker_metrics.h"

namespace tributary {

GraphMgr::GraphMgr(const WorkerEnv* env, ResourceMgr* resource_mgr,
                   MemoryBudget* memory_budget)
    : env_(env),
      resource_mgr_(resource_mgr),
      memory_budget_(memory_budget),
      new_name_(MakeNodeNameGenerator("_G")) {}

namespace {

// The master links no kernels and places by op definitions alone, so the
// worker is the first to know that a node has no kernel on its device. The
// error is TensorFlow's (and the local session's): InvalidArgument "No
// OpKernel was registered to support Op ...", not the registry's NotFound.
absl::Status CheckKernelRegistered(const Node& n, const Device& device) {
  const DeviceType type(device.device_type());
  absl::StatusOr<PrioritizedDeviceTypeVector> supported =
      SupportedDeviceTypesFromRegistry(nullptr, {type}, n.def(),
                                       *OpRegistry::Global());
  if (supported.ok() && !supported->empty()) return absl::OkStatus();
  return errors::InvalidArgument(
      "No OpKernel was registered to support Op '", n.type_string(),
      "' used by node '", n.name(), "' with these attrs: [",
      n.attrs().SummarizeAttrs(), "]\nRegistered devices: [",
      type.type_string(), "]\nRegistered kernels:\n",
      RegisteredKernelsForOp(n.type_string()));
}

}  // namespace

GraphMgr::~GraphMgr() {
  WorkerMetrics::CountGraphs(
      -static_cast<double>(items_.size()));
}

absl::StatusOr<std::string> GraphMgr::Register(
    const tensorflow::RegisterGraphRequest& request) {
  // The master's partition holds the runtime's own nodes (_Send, _Recv).
  GraphConstructorOptions copts;
  copts.allow_internal_ops = true;
  Graph graph(OpRegistry::Global());
  TRIB_RETURN_IF_ERROR(
      ConvertGraphDefToGraph(copts, request.graph_def(), &graph));
  for (Node* n : graph.op_nodes()) {
    const std::string& requested = n->requested_device();
    if (requested.empty()) {
      return errors::InvalidArgument(
          "Node ", n->name(), " (", n->type_string(),
          ") of the graph registered on ", env_->task_name,
          " has no device; the master places every node before registering");
    }
    absl::StatusOr<Device*> device = env_->device_mgr->LookupDevice(requested);
    if (!device.ok()) {
      return errors::InvalidArgument(
          "Node ", n->name(), " (", n->type_string(), ") is placed on ",
          requested, ", which is not a device of worker ", env_->task_name,
          ": ", device.status().message());
    }
    n->set_assigned_device_name((*device)->name());
    TRIB_RETURN_IF_ERROR(CheckKernelRegistered(*n, **device));
  }

  PartitionOptions popts;
  popts.node_to_loc = SplitByDevice();
  popts.new_name = new_name_;
  const DeviceMgr* devices = env_->device_mgr;
  popts.get_incarnation = [devices](const std::string& name) -> uint64_t {
    absl::StatusOr<Device*> d = devices->LookupDevice(name);
    return d.ok() ? (*d)->incarnation() : PartitionOptions::kIllegalIncarnation;
  };
  // The master already built the control loops of frames spanning devices
  // (its partition works on devices too); doing it again would duplicate
  // them.
  popts.control_flow_added = true;
  std::map<std::string, tensorflow::GraphDef> partitions;
  TRIB_RETURN_IF_ERROR(Partition(popts, &graph, &partitions));

  auto item = std::make_shared<GraphItem>();
  item->has_remote_sends = HasRemoteSends(request.graph_def());
  for (auto& [location, gdef] : partitions) {
    GraphUnit unit;
    TRIB_ASSIGN_OR_RETURN(unit.device,
                          env_->device_mgr->LookupDevice(location));
    Graph part(OpRegistry::Global());
    TRIB_RETURN_IF_ERROR(ConvertGraphDefToGraph(copts, gdef, &part));
    for (Node* n : part.op_nodes()) {
      n->set_assigned_device_name(unit.device->name());
    }
    LocalExecutorParams params;
    params.device = unit.device;
    params.resource_mgr = resource_mgr_;
    params.memory_budget = memory_budget_;
    params.file_access = env_->file_access;
    TRIB_ASSIGN_OR_RETURN(unit.executor, NewLocalExecutor(params, part));
    unit.graph_def = std::move(gdef);
    item->units.push_back(std::move(unit));
  }

  absl::MutexLock l(&mu_);
  // Unique within the session; the session handle scopes it.
  item->handle = absl::StrFormat("%016x", ++next_id_);
  const std::string handle = item->handle;
  items_.emplace(handle, std::move(item));
  WorkerMetrics::CountGraphs(1);
  return handle;
}

absl::Status GraphMgr::Deregister(const std::string& handle) {
  std::shared_ptr<const GraphItem> item;
  {
    absl::MutexLock l(&mu_);
    auto it = items_.find(handle);
    if (it == items_.end()) {
      return errors::Aborted("Graph handle is not found: ", handle,
                             ". Possibly, this worker just restarted.");
    }
    item = std::move(it->second);
    items_.erase(it);
  }
  WorkerMetrics::CountGraphs(-1);
  // Kernels are destroyed here (or by the last running step), outside the
  // lock.
  return absl::OkStatus();
}

void GraphMgr::DeregisterAll() {
  absl::flat_hash_map<std::string, std::shared_ptr<const GraphItem>> items;
  {
    absl::MutexLock l(&mu_);
    items.swap(items_);
  }
  WorkerMetrics::CountGraphs(
      -static_cast<double>(items.size()));
}

absl::StatusOr<std::shared_ptr<const GraphItem>> GraphMgr::Lookup(
    const std::string& handle) const {
  absl::MutexLock l(&mu_);
  auto it = items_.find(handle);
  if (it == items_.end()) {
    return errors::Aborted("Graph handle is not found: ", handle,
                           ". Possibly, this worker just restarted.");
  }
  return it->second;
}

int GraphMgr::NumGraphs() const {
  absl::MutexLock l(&mu_);
  return static_cast<int>(items_.size());
}

void GraphMgr::ExecuteAsync(std::shared_ptr<const GraphItem> item,
                            const StepOptions& options,
                            std::function<void(const absl::Status&)> done) {
  const size_t n = item->units.size();
  if (n == 0) {
    done(absl::OkStatus());
    return;
  }
  Executor::Args args;
  args.step_id = options.step_id;
  args.rendezvous = options.rendezvous;
  args.cancellation_manager = options.cancellation_manager;
  args.resource_mgr = resource_mgr_;
  // This step's resources on this worker (TensorArrays, stacks), dropped
  // once its partitions have all reported, as TensorFlow's GraphMgr does.
  auto step_container =
      std::make_shared<ScopedStepContainer>(options.step_id, resource_mgr_);
  args.step_container = step_container.get();
  args.stats_collector = options.stats_collector;
  args.sync_on_finish = true;
  if (env_->compute_pool != nullptr) {
    InterOpThreadPool* pool = env_->compute_pool;
    args.runner = [pool](std::function<void()> fn) {
      pool->Schedule(std::move(fn));
    };
  } else {
    args.run_all_kernels_inline = true;
  }
  // Deleted by its own last report (the barrier moves `done` out first);
  // the item stays alive until then.
  // The barrier keeps the first real error. Among echoes it keeps the
  // first to arrive, which is often a partition's bare "Step N was
  // cancelled" rather than the Aborted/DeadlineExceeded that named the
  // cause; `best` ranks them so the cause wins.
  struct Join {
    absl::Mutex mu;
    absl::Status best ABSL_GUARDED_BY(mu);
  };
  auto join = std::make_shared<Join>();
  auto rank = [](const absl::Status& s) {
    if (s.ok()) return 3;
    if (absl::IsCancelled(s)) return 2;
    if (absl::IsAborted(s)) return 1;
    return 0;
  };
  auto slot = std::make_shared<ExecutorBarrier*>(nullptr);
  *slot = new ExecutorBarrier(
      static_cast<int>(n), options.rendezvous,
      [slot, join, rank, item, step_container,
       done = std::move(done)](const absl::Status& s) mutable {
        // Safe: the barrier touches nothing of its own
        // after this call.
        std::unique_ptr<ExecutorBarrier> barrier(*slot);
        absl::Status status = s;
        {
          absl::MutexLock l(&join->mu);
          if (!s.ok() && rank(join->best) < rank(s)) status = join->best;
        }
        // Before `done`: once it has run the caller may
        // let go of what the executors use (a
        // deregistered graph's last reference is here).
        item.reset();
        step_container.reset();
        done(status);
      });
  ExecutorBarrier* barrier = *slot;
  auto report = [barrier, join, rank](const absl::Status& s) {
    {
      absl::MutexLock l(&join->mu);
      if (rank(s) < rank(join->best)) join->best = s;
    }
    barrier->Report(s);
  };
  for (const GraphUnit& unit : item->units) {
    unit.executor->RunAsync(args, report);
  }
}

}  // namespace tributary
