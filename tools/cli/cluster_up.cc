#include "tools/cli/cluster_up.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/cluster/cluster_spec.h"
#include "common/framework/status.h"
#include "tools/cli/binary_locator.h"
#include "tools/cli/child_process.h"
#include "tools/cli/cluster_probe.h"
#include "tools/cli/cluster_state.h"
#include "tools/cli/cluster_tls.h"
#include "tools/cli/daemon_readiness.h"
#include "tools/cli/process_info.h"
#include "tools/cli/termination_signals.h"

namespace tributary {
namespace {

constexpr int kExitStopped = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;
// Lines of a daemon's log shown when it fails.
constexpr int kLogTailLines = 20;
// How often the master's log is read for its "listening on" line.
constexpr absl::Duration kListeningPollInterval = absl::Milliseconds(100);
// How often the foreground loop looks at the children between signals.
constexpr absl::Duration kSuperviseInterval = absl::Milliseconds(200);

struct Daemon {
  std::string name;     // Task name, or "master".
  std::string address;  // Where to reach it (the master's once known).
  std::string binary;
  std::unique_ptr<ChildProcess> process;
};

// Set when a termination signal arrived during startup.
struct Interrupted {
  int signal = 0;
};

std::string Seconds(double s) { return absl::StrFormat("%g s", s); }

absl::StatusOr<std::string> MakeLogDir(const std::string& flag) {
  if (!flag.empty()) {
    // One level below an existing parent, as a user passes in practice.
    if (mkdir(flag.c_str(), 0755) != 0 && errno != EEXIST) {
      return errors::PermissionDenied("cannot create log directory ", flag,
                                      ": ", strerror(errno));
    }
    return AbsolutePath(flag);
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl =
      absl::StrCat(tmp && *tmp ? tmp : "/tmp", "/tributary-cluster-XXXXXX");
  if (mkdtemp(tmpl.data()) == nullptr) {
    return errors::PermissionDenied("cannot create a log directory: ",
                                    strerror(errno));
  }
  return tmpl;
}

// Where a client reaches a server listening on `listen`: a wildcard host
// becomes loopback.
std::string ConnectAddress(const std::string& listen) {
  if (absl::StartsWith(listen, "0.0.0.0:")) {
    return absl::StrCat("127.0.0.1", listen.substr(7));
  }
  if (absl::StartsWith(listen, "[::]:")) {
    return absl::StrCat("[::1]", listen.substr(4));
  }
  return listen;
}

bool HasPortZero(const std::string& address) {
  return absl::EndsWith(address, ":0");
}

std::string FailureReport(const Daemon& d, const std::string& what) {
  std::string report = absl::StrCat("tributary cluster: ", d.name);
  if (!d.address.empty()) absl::StrAppend(&report, " (", d.address, ")");
  absl::StrAppend(&report, " ", what, "\n");
  if (d.process != nullptr) {
    const std::string tail = TailOfFile(d.process->log_path(), kLogTailLines);
    absl::StrAppend(&report, "--- last lines of ", d.process->log_path(),
                    " ---\n", tail.empty() ? "(empty)\n" : tail, "---\n");
  }
  return report;
}

// Ends a wait with Cancelled when a termination signal arrived during
// startup, and records the signal in `interrupted`.
absl::Status CheckInterrupted(Interrupted* interrupted) {
  if (int sig = WaitForTerminationSignalFor(absl::ZeroDuration())) {
    interrupted->signal = sig;
    return errors::Cancelled("interrupted by signal ", sig);
  }
  return absl::OkStatus();
}

// The master's address once its "listening on" line shows (it was told
// port 0).
absl::Status WaitForListeningAddress(Daemon& master, absl::Time deadline,
                                     double timeout_s,
                                     Interrupted* interrupted) {
  while (true) {
    if (absl::Status s = CheckInterrupted(interrupted); !s.ok()) return s;
    const std::string bound =
        ListeningAddressFromLog(master.process->log_path());
    if (!bound.empty()) {
      master.address = ConnectAddress(bound);
      return absl::OkStatus();
    }
    if (!master.process->Running()) {
      return errors::FailedPrecondition(master.process->ExitDescription());
    }
    if (absl::Now() >= deadline) {
      return errors::DeadlineExceeded(
          "did not log \"listening on ADDR\" within ", Seconds(timeout_s));
    }
    absl::SleepFor(kListeningPollInterval);
  }
}

class ClusterUp {
 public:
  ClusterUp(const ClusterUpOptions& options, std::ostream& out,
            std::ostream& err)
      : options_(options), out_(out), err_(err) {}

  ~ClusterUp() {
    // Whatever path left early: no daemon outlives the launcher.
    StopAll();
    if (!state_path_.empty()) std::remove(state_path_.c_str());
  }

  int Run() {
    BlockTerminationSignals();  // Before any thread (gRPC's) exists.
    if (int code = Prepare(); code != 0) return code;
    if (int code = Start(); code != 0) return code;
    if (int code = WaitUntilUp(); code != 0) return code;
    // The first stdout line, flushed: scripts wait for it.
    out_ << "grpc://" << master_.address << std::endl;
    err_ << "tributary cluster: up: " << workers_.size() << " task"
         << (workers_.size() == 1 ? "" : "s") << " and a master at grpc://"
         << master_.address << "; logs in " << log_dir_
         << ". Ctrl-C or `tributary cluster down --cluster " << cluster_file_
         << "` stops it." << std::endl;
    return Supervise();
  }

 private:
  int Prepare() {
    if (options_.cluster_file.empty()) {
      err_ << "tributary cluster up: --cluster FILE is required\n";
      return kExitBadInput;
    }
    cluster_file_ = RealPathOr(AbsolutePath(options_.cluster_file));
    absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJsonFile(cluster_file_);
    if (!spec.ok()) {
      err_ << "tributary cluster up: " << cluster_file_ << ": "
           << spec.status().message() << "\n";
      return kExitBadInput;
    }
    spec_ = *std::move(spec);
    if (spec_.TaskNames().empty()) {
      err_ << "tributary cluster up: " << cluster_file_ << " has no tasks\n";
      return kExitBadInput;
    }
    const std::string self = SelfExecutablePath();
    const char* path_env = std::getenv("PATH");
    absl::StatusOr<std::string> worker_bin = LocateDaemonBinary(
        kWorkerBinary, options_.worker_binary, self, path_env ? path_env : "");
    absl::StatusOr<std::string> master_bin = LocateDaemonBinary(
        kMasterBinary, options_.master_binary, self, path_env ? path_env : "");
    for (const auto* bin : {&worker_bin, &master_bin}) {
      if (!bin->ok()) {
        err_ << "tributary cluster up: " << bin->status().message() << "\n";
        return kExitBadInput;
      }
    }
    worker_binary_ = *worker_bin;
    master_binary_ = *master_bin;

    // One cluster per spec file at a time: the second would collide on the
    // spec's ports anyway, and `cluster down` finds clusters by spec file.
    const std::string state_path =
        StateFilePath(StateDirectory(options_.state_dir), cluster_file_);
    absl::StatusOr<ClusterState> existing = ReadClusterState(state_path);
    if (existing.ok() && existing->pid != getpid() &&
        ProcessAlive(existing->pid)) {
      err_ << "tributary cluster up: a cluster of " << cluster_file_
           << " is already running (pid " << existing->pid
           << "); stop it with `tributary cluster down --cluster "
           << cluster_file_ << "`\n";
      return kExitFailed;
    }
    state_path_ = state_path;

    absl::StatusOr<std::string> log_dir = MakeLogDir(options_.log_dir);
    if (!log_dir.ok()) {
      err_ << "tributary cluster up: " << log_dir.status().message() << "\n";
      return kExitBadInput;
    }
    log_dir_ = *log_dir;
    err_ << "tributary cluster: logs in " << log_dir_ << std::endl;
    return PrepareTls();
  }

  // The daemons' TLS files and the credentials of our own probes.
  int PrepareTls() {
    if (options_.tls_mode == "auto") {
      if (options_.tls_files.any()) {
        err_ << "tributary cluster up: --tls auto makes its own PKI; give "
                "either it or --tls-cert/--tls-key/--tls-ca\n";
        return kExitBadInput;
      }
      const std::string master_host = options_.master_address.substr(
          0, options_.master_address.rfind(':'));
      absl::StatusOr<ClusterTls> tls = MakeThrowawayClusterPki(
          spec_, master_host, absl::StrCat(log_dir_, "/tls"));
      if (!tls.ok()) {
        err_ << "tributary cluster up: " << tls.status().message() << "\n";
        return kExitFailed;
      }
      tls_ = *std::move(tls);
      err_ << "tributary cluster: mutual TLS with a throwaway CA in "
           << log_dir_ << "/tls" << std::endl;
    } else if (options_.tls_mode != "off") {
      err_ << "tributary cluster up: --tls is auto or off, not '"
           << options_.tls_mode << "'\n";
      return kExitBadInput;
    } else if (options_.tls_files.any()) {
      tls_ = SameFilesEverywhere(spec_, options_.tls_files);
    } else {
      return 0;
    }
    absl::StatusOr<std::shared_ptr<TransportSecurity>> client =
        TransportSecurity::Load(tls_->client,
                                TransportSecurity::Role::kClient);
    if (!client.ok()) {
      err_ << "tributary cluster up: " << client.status().message() << "\n";
      return kExitBadInput;
    }
    client_security_ = *std::move(client);
    return 0;
  }

  int Start() {
    for (const std::string& job : spec_.jobs()) {
      for (int task : spec_.task_indices(job)) {
        Daemon d;
        d.name = absl::StrCat("/job:", job, "/replica:0/task:", task);
        d.address = *spec_.TaskAddress(job, task);
        d.binary = worker_binary_;
        std::vector<std::string> argv = {
            worker_binary_, "--cluster",         cluster_file_, "--job", job,
            "--task",       std::to_string(task)};
        if (tls_.has_value()) {
          const std::vector<std::string> tls = TlsFlags(tls_->tasks[d.name]);
          argv.insert(argv.end(), tls.begin(), tls.end());
        }
        argv.insert(argv.end(), options_.worker_flags.begin(),
                    options_.worker_flags.end());
        const std::string log =
            absl::StrCat(log_dir_, "/", job, "-", task, ".log");
        if (!StartDaemon(d, argv, log)) return kExitFailed;
        workers_.push_back(std::move(d));
      }
    }
    master_.name = "master";
    master_.address = HasPortZero(options_.master_address)
                          ? ""
                          : ConnectAddress(options_.master_address);
    master_.binary = master_binary_;
    std::vector<std::string> argv = {master_binary_, "--cluster", cluster_file_,
                                     "--listen", options_.master_address};
    if (tls_.has_value()) {
      const std::vector<std::string> tls = TlsFlags(tls_->master);
      argv.insert(argv.end(), tls.begin(), tls.end());
    }
    argv.insert(argv.end(), options_.master_flags.begin(),
                options_.master_flags.end());
    if (!StartDaemon(master_, argv, absl::StrCat(log_dir_, "/master.log"))) {
      return kExitFailed;
    }
    WriteState();
    return 0;
  }

  bool StartDaemon(Daemon& d, const std::vector<std::string>& argv,
                   const std::string& log) {
    absl::StatusOr<std::unique_ptr<ChildProcess>> child =
        ChildProcess::Start(argv, log);
    if (!child.ok()) {
      err_ << "tributary cluster: cannot start " << d.name << ": "
           << child.status().message() << "\n";
      return false;
    }
    d.process = *std::move(child);
    err_ << "tributary cluster: started " << d.name
         << (d.address.empty() ? "" : absl::StrCat(" on ", d.address))
         << " (pid " << d.process->pid() << ", log " << log << ")" << std::endl;
    return true;
  }

  void WriteState() {
    ClusterState state;
    state.pid = getpid();
    state.cluster_file = cluster_file_;
    state.log_dir = log_dir_;
    if (ready_) state.master_target = absl::StrCat("grpc://", master_.address);
    if (tls_.has_value()) {
      state.tls_ca = tls_->client.ca_file;
      state.tls_cert = tls_->client.cert_file;
      state.tls_key = tls_->client.key_file;
    }
    for (const Daemon* d : AllDaemons()) {
      if (d->process == nullptr) continue;
      state.children.push_back(
          {d->name, d->process->pid(), d->binary, d->process->log_path()});
    }
    absl::Status s = WriteClusterState(state_path_, state);
    if (!s.ok()) {
      // Not fatal: Ctrl-C still works; only `cluster down` will not.
      err_ << "tributary cluster: warning: " << s.message()
           << "; `tributary cluster down` will not find this cluster\n";
    }
  }

  int WaitUntilUp() {
    const double timeout_s = options_.startup_timeout_seconds;
    const absl::Time deadline = absl::Now() + absl::Seconds(timeout_s);
    Interrupted interrupted;
    ReadinessWait wait;
    wait.deadline = deadline;
    wait.timeout = absl::Seconds(timeout_s);
    if (client_security_ != nullptr) {
      wait.credentials = client_security_->ChannelCredentials();
    }
    wait.interrupted = [&interrupted] {
      return CheckInterrupted(&interrupted);
    };
    for (Daemon& w : workers_) {
      absl::Status s = WaitForWorkerReady(*w.process, w.address, wait).status();
      if (!s.ok()) return StartupFailed(w, s, interrupted);
    }
    if (master_.address.empty()) {
      absl::Status s =
          WaitForListeningAddress(master_, deadline, timeout_s, &interrupted);
      if (!s.ok()) return StartupFailed(master_, s, interrupted);
    }
    absl::StatusOr<tensorflow::ListDevicesResponse> devices =
        WaitForMasterReady(*master_.process, master_.address, wait);
    if (!devices.ok()) {
      return StartupFailed(master_, devices.status(), interrupted);
    }
    const int num_devices =
        devices->local_device_size() + devices->remote_device_size();
    ready_ = true;
    WriteState();
    err_ << "tributary cluster: the master lists " << num_devices << " device"
         << (num_devices == 1 ? "" : "s") << std::endl;
    return 0;
  }

  int StartupFailed(const Daemon& d, const absl::Status& s,
                    const Interrupted& interrupted) {
    if (interrupted.signal != 0) {
      err_ << "tributary cluster: interrupted ("
           << strsignal(interrupted.signal) << ") while starting; stopping\n";
    } else {
      err_ << FailureReport(d, std::string(s.message()));
    }
    StopAll();
    return kExitFailed;
  }

  int Supervise() {
    std::vector<bool> reported(workers_.size(), false);
    while (true) {
      if (int sig = WaitForTerminationSignalFor(kSuperviseInterval)) {
        err_ << "tributary cluster: " << strsignal(sig)
             << "; stopping the cluster" << std::endl;
        StopAll();
        err_ << "tributary cluster: stopped" << std::endl;
        return kExitStopped;
      }
      if (!master_.process->Running()) {
        err_ << FailureReport(master_,
                              absl::StrCat(master_.process->ExitDescription(),
                                           "; stopping the cluster"));
        StopAll();
        return kExitFailed;
      }
      for (size_t i = 0; i < workers_.size(); ++i) {
        if (!reported[i] && !workers_[i].process->Running()) {
          reported[i] = true;
          err_ << FailureReport(
              workers_[i],
              absl::StrCat(workers_[i].process->ExitDescription(),
                           "; the rest of the cluster keeps running"));
        }
      }
    }
  }

  // Master first, so it can release its sessions on the workers while they
  // still answer; then the workers together.
  void StopAll() {
    const absl::Duration grace = absl::Seconds(options_.grace_period_seconds);
    auto stop = [&](std::vector<Daemon*> daemons) {
      std::vector<ChildProcess*> children;
      for (Daemon* d : daemons) {
        if (d->process != nullptr) children.push_back(d->process.get());
      }
      for (ChildProcess* killed : StopChildren(children, grace)) {
        for (Daemon* d : daemons) {
          if (d->process.get() == killed) {
            err_ << "tributary cluster: " << d->name << " did not stop within "
                 << Seconds(options_.grace_period_seconds)
                 << " of SIGTERM; killed it\n";
          }
        }
      }
    };
    stop({&master_});
    std::vector<Daemon*> workers;
    for (Daemon& w : workers_) workers.push_back(&w);
    stop(workers);
  }

  std::vector<const Daemon*> AllDaemons() const {
    std::vector<const Daemon*> all;
    for (const Daemon& w : workers_) all.push_back(&w);
    all.push_back(&master_);
    return all;
  }

  const ClusterUpOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  std::string cluster_file_;
  ClusterSpec spec_;
  std::string worker_binary_;
  std::string master_binary_;
  std::string log_dir_;
  std::optional<ClusterTls> tls_;
  std::shared_ptr<TransportSecurity> client_security_;
  std::string state_path_;
  std::vector<Daemon> workers_;
  Daemon master_;
  bool ready_ = false;
};

}  // namespace

int RunClusterUp(const ClusterUpOptions& options, std::ostream& out,
                 std::ostream& err) {
  ClusterUp up(options, out, err);
  return up.Run();
}

}  // namespace tributary
