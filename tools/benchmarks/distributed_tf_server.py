"""One task of a TensorFlow cluster (tf.distribute.Server from the pip package),
serving until killed: TensorFlow's side of the distributed benchmark.

  python distributed_tf_server.py '{"worker": ["127.0.0.1:1", ...]}' worker 0

Each task also hosts a master, as every TensorFlow server does; the benchmark's
client talks to task 0's.
"""

import json
import sys

import tensorflow as tf


def main():
    cluster = tf.train.ClusterSpec(json.loads(sys.argv[1]))
    server = tf.distribute.Server(
        cluster, job_name=sys.argv[2], task_index=int(sys.argv[3]),
        protocol="grpc", start=True)
    print("listening on", server.target, flush=True)
    server.join()


if __name__ == "__main__":
    main()
