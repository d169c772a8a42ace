"""The soak test's workloads (soak.py), built with TensorFlow's own Python API
and written as binary GraphDefs, so the C++ and the Python clients run the
very same graphs on Tributary and on TensorFlow's servers.

  python soak_graphs.py OUT_DIR      writes OUT_DIR/<workload>.pb and
                                     OUT_DIR/workloads.json

Cluster shape: {"ps": [task 0], "worker": [task 0, task 1]}. Workloads:
  trivial      two constants added on worker 0 (the RunStep round trip);
  cross_task   a 256 KiB tensor made on the ps, summed on worker 1 (a
               RecvTensor between tasks every step);
  training     a 256-float resource variable on the ps trained by gradient
               descent on worker 0 (variables, gradients, an Apply op on
               the ps; fetches the loss, runs the train op);
  churn        the trivial graph, in a new session for every step (session
               create/close churn);
  deadline     a while loop that never ends, on worker 1, run with a 100 ms
               RunOptions timeout: must end DEADLINE_EXCEEDED, every time.
"""

import json
import os
import sys

import tensorflow as tf

PS = "/job:ps/replica:0/task:0"
W0 = "/job:worker/replica:0/task:0"
W1 = "/job:worker/replica:0/task:1"


def trivial():
    with tf.device(W0):
        a = tf.constant(3.0, name="a")
        b = tf.constant(4.0, name="b")
        c = tf.add(a, b, name="c")
    return {"fetch": [c.name], "target": []}


def cross_task():
    with tf.device(PS):
        x = tf.fill([65536], 1.0, name="x")
    with tf.device(W1):
        y = tf.reduce_sum(x, name="y")
    return {"fetch": [y.name], "target": []}


def training():
    with tf.device(PS):
        w = tf.compat.v1.get_variable(
            "soak_w", shape=[256],
            initializer=tf.compat.v1.zeros_initializer(), use_resource=True)
    with tf.device(W0):
        x = tf.constant([0.5] * 256, name="x")
        loss = tf.reduce_sum(tf.square(w * x - 1.0), name="loss")
        train = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
            loss, name="train")
    return {"fetch": [loss.name], "target": [train.name],
            "init": [w.initializer.name]}


def deadline():
    with tf.device(W1):
        i = tf.constant(0, name="i0")
        out = tf.compat.v1.while_loop(lambda i: tf.constant(True),
                                      lambda i: i + 1, [i], name="forever")
    return {"fetch": [out.name], "target": [], "timeout_ms": 100,
            "expect": "DEADLINE_EXCEEDED"}


def main():
    tf.compat.v1.disable_eager_execution()
    # TF1 control flow: the loop must be Enter/Merge/Switch, which both
    # runtimes run, and which never ends.
    tf.compat.v1.disable_control_flow_v2()
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    workloads = {}
    builders = {"trivial": trivial, "cross_task": cross_task,
                "training": training, "deadline": deadline}
    for name, build in builders.items():
        graph = tf.Graph()
        with graph.as_default():
            spec = build()
        path = os.path.join(out, name + ".pb")
        with open(path, "wb") as f:
            f.write(graph.as_graph_def().SerializeToString())
        spec.update(graph=path)
        workloads[name] = spec
    churn = dict(workloads["trivial"])
    churn["new_session_each_step"] = True
    workloads["churn"] = churn
    with open(os.path.join(out, "workloads.json"), "w") as f:
        json.dump(workloads, f, indent=1)


if __name__ == "__main__":
    main()
