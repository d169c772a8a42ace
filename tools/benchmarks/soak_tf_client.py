"""The soak test's TensorFlow clients (soak.py): the same as soak_client.cc
with TensorFlow's own Python client, tf.compat.v1.Session("grpc://..."), one
session per thread, the graphs imported from soak_graphs.py's GraphDefs.
Same flags and the same JSON out."""

import argparse
import json
import random
import threading
import time

import tensorflow as tf

CODES = {1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT",
         4: "DEADLINE_EXCEEDED", 5: "NOT_FOUND", 6: "ALREADY_EXISTS",
         7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED",
         9: "FAILED_PRECONDITION", 10: "ABORTED", 11: "OUT_OF_RANGE",
         12: "UNIMPLEMENTED", 13: "INTERNAL", 14: "UNAVAILABLE",
         15: "DATA_LOSS", 16: "UNAUTHENTICATED"}
SAMPLE = 20000


class Record:
    """Steps, errors by code and a reservoir of latencies of one workload."""

    def __init__(self):
        self.lock = threading.Lock()
        self.steps = 0
        self.errors = {}
        self.first_error = ""
        self.sample = []
        self.rng = random.Random(42)

    def add(self, latency_ms, error):
        with self.lock:
            self.steps += 1
            if error is not None:
                code = CODES.get(getattr(error, "error_code", 2), "UNKNOWN")
                self.errors[code] = self.errors.get(code, 0) + 1
                if not self.first_error:
                    self.first_error = f"{code}: {error}"[:500]
            if len(self.sample) < SAMPLE:
                self.sample.append(latency_ms)
            else:
                at = self.rng.randrange(self.steps)
                if at < SAMPLE:
                    self.sample[at] = latency_ms

    def to_json(self):
        with self.lock:
            return {"steps": self.steps, "errors": self.errors,
                    "first_error": self.first_error,
                    "latency_ms_sample": self.sample}


def open_session(target, workload, graph):
    config = tf.compat.v1.ConfigProto(operation_timeout_in_ms=30000)
    session = tf.compat.v1.Session(target, graph=graph, config=config)
    if workload.get("init"):
        session.run(workload["init"])
    return session


def run_client(target, workload, end, record):
    graph = tf.Graph()
    with graph.as_default():
        graph_def = tf.compat.v1.GraphDef()
        with open(workload["graph"], "rb") as f:
            graph_def.ParseFromString(f.read())
        tf.graph_util.import_graph_def(graph_def, name="")
    options = tf.compat.v1.RunOptions()
    if workload.get("timeout_ms"):
        options.timeout_in_ms = workload["timeout_ms"]
    fetches = workload.get("fetch", []) + workload.get("target", [])
    session = None
    while time.monotonic() < end:
        start = time.monotonic()
        error = None
        try:
            if session is None or workload.get("new_session_each_step"):
                session = open_session(target, workload, graph)
            session.run(fetches, options=options)
        except tf.errors.OpError as e:
            error = e
        if workload.get("new_session_each_step") and session is not None:
            session.close()
            session = None
        record.add((time.monotonic() - start) * 1000, error)
        if error is not None and not workload.get("timeout_ms") and session:
            session.close()
            session = None


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--target", required=True)
    p.add_argument("--workloads", required=True)
    p.add_argument("--mix", required=True)
    p.add_argument("--threads", type=int, default=8)
    p.add_argument("--first-client", type=int, default=0)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    with open(args.workloads) as f:
        workloads = json.load(f)
    roles = []
    for part in args.mix.split(","):
        name, weight = part.split(":")
        roles += [name] * int(weight)
    records = {name: Record() for name in workloads}
    started = time.monotonic()
    end = started + args.seconds
    threads = []
    for t in range(args.threads):
        name = roles[(args.first_client + t) % len(roles)]
        th = threading.Thread(target=run_client,
                              args=(args.target, workloads[name], end,
                                    records[name]))
        th.start()
        threads.append(th)
    for th in threads:
        th.join()
    result = {"client": "tf_python", "seconds": time.monotonic() - started,
              "workloads": {n: r.to_json() for n, r in records.items()}}
    with open(args.out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
