#!/usr/bin/env bash
# The README's main job. Installs what it needs, builds, starts a cluster of
# separate processes on this machine - one ps task and two worker tasks
# (tributary-worker) and a master (tributary-master) on loopback with free
# ports - and trains logistic regression over it through gRPC: the variables
# live on /job:ps/replica:0/task:0, each worker task computes the gradient of
# half of every batch, and the ps task averages and applies them. The loss is
# printed under a progress bar as it falls; then the cluster is shut down
# (also when training fails or on Ctrl-C). Flags go to the training program
# (tools/examples/train_logistic_regression.cc), e.g.
# `tools/main.sh --steps 100`.
#
# Other modes, one argument away:
#   tools/main.sh local [FLAGS]      the same training in one process
#                                    (the local session, two CPU devices)
#   tools/main.sh inspect [GRAPH]    nodes, ops, devices and validation of a GraphDef
#                                    (default: tests/testdata/linear_model.pbtxt)
#   tools/main.sh run --graph G ...  run a GraphDef (see `tributary run --help`)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tools/setup.sh >&2

build() {
  bazel build "$@" >&2 2> >(grep -v linux-sandbox >&2)
}

case "${1:-}" in
  inspect)
    shift
    build //tools:tributary
    exec bazel-bin/tools/tributary inspect "${@:-tests/testdata/linear_model.pbtxt}"
    ;;
  run)
    build //tools:tributary
    exec bazel-bin/tools/tributary "$@"
    ;;
  local)
    shift
    build //tools/examples:train_logistic_regression
    exec bazel-bin/tools/examples/train_logistic_regression --target local "$@"
    ;;
esac

# The cluster: daemons are //tools:tributary's data deps, so this builds them.
build //tools:tributary //tools/examples:train_logistic_regression \
  //worker:tributary-worker //master:tributary-master

work="$(mktemp -d -t tributary-main.XXXXXX)"
up_pid=""
stop_cluster() {
  local status=$?
  if [[ -n "$up_pid" ]] && kill -0 "$up_pid" 2>/dev/null; then
    # `cluster up` stops the master, then the workers (SIGTERM, then SIGKILL
    # after its grace period) and exits.
    kill -TERM "$up_pid" 2>/dev/null || true
    wait "$up_pid" 2>/dev/null || true
    echo "Cluster stopped." >&2
  fi
  # Logs are kept when something failed, not after success or Ctrl-C.
  if [[ $status -eq 0 || $status -eq 130 ]]; then
    rm -rf "$work"
  else
    echo "Cluster logs kept in $work/logs (launcher: $work/cluster-up.log)" >&2
  fi
}
trap stop_cluster EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Three loopback ports that are free now (the daemons bind them a moment
# later); the master picks its own (--master 127.0.0.1:0, the default).
read -r ps_port w0_port w1_port < <(python3 - <<'PY'
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
PY
)
cat >"$work/cluster.json" <<EOF
{
  "ps": ["127.0.0.1:$ps_port"],
  "worker": ["127.0.0.1:$w0_port", "127.0.0.1:$w1_port"]
}
EOF

bazel-bin/tools/tributary cluster up --cluster "$work/cluster.json" \
  --log-dir "$work/logs" --state-dir "$work/state" \
  >"$work/target" 2>"$work/cluster-up.log" &
up_pid=$!

# Its first stdout line is the master's target, once every task answers.
# `cluster up` gives up by itself after its --startup-timeout (60 s).
while [[ "$(wc -l <"$work/target")" -lt 1 ]]; do
  if ! kill -0 "$up_pid" 2>/dev/null; then
    wait "$up_pid" || true
    up_pid=""
    echo "The cluster did not start:" >&2
    cat "$work/cluster-up.log" >&2
    exit 1
  fi
  sleep 0.1
done
target="$(head -n 1 "$work/target")"
echo "Cluster up: ps 127.0.0.1:$ps_port, workers 127.0.0.1:$w0_port and" \
  "127.0.0.1:$w1_port, master $target (separate processes)"

bazel-bin/tools/examples/train_logistic_regression --target "$target" "$@"
