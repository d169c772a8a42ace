"""The layers of Tributary, bottom to top, and the visibility that enforces them.

A package may depend on packages of its own layer and of the layers below it, never
on a layer above: every BUILD file sets

    load("//:layers.bzl", "layer_visibility")
    package(default_visibility = layer_visibility())

so its targets are visible only to its own layer and the layers above, and an upward
dependency fails `bazel build` with a visibility error (tests/layering proves it).
docs/architecture.md lists the same layers in the same order, and
tests/layering:layers_doc_test checks that the two agree.

Test-only helpers follow the rule too. The few files every test may use whatever its
layer (the Python test runner, the test graphs) are exported publicly by tests/interop
and tests/testdata; nothing in production can use them, since they are not code.
"""

# (layer, packages), bottom first. Every package of the workspace except third_party
# is in exactly one layer (layer_visibility fails for a package that is not).
LAYERS = [
    ("protos", ["protos"]),
    ("framework", ["common/framework", "common/metrics"]),
    ("checkpoint", ["common/checkpoint"]),
    ("op", ["common/op"]),
    ("op_defs", ["kernels/ops"]),
    ("kernel", ["common/kernel"]),
    ("device", ["common/device"]),
    ("graph", ["common/graph"]),
    ("function", ["common/function"]),
    ("rendezvous", ["common/rendezvous", "common/resource"]),
    ("cluster", ["common/cluster"]),
    ("distributed", ["common/distributed", "common/distributed/testing"]),
    ("rpc", ["common/rpc"]),
    ("daemon", ["common/daemon"]),
    ("devices", ["devices", "devices/cpu", "devices/gpu"]),
    ("kernels", [
        "kernels",
        "kernels/array",
        "kernels/control_flow",
        "kernels/embedding",
        "kernels/function",
        "kernels/io",
        "kernels/list",
        "kernels/math",
        "kernels/nn",
        "kernels/plumbing",
        "kernels/random",
        "kernels/sendrecv",
        "kernels/state",
        "kernels/tensor_array",
        "kernels/testing",
        "kernels/training",
    ]),
    ("placement", ["common/runtime/placement"]),
    ("optimization", ["common/runtime/optimization"]),
    ("partition", ["common/runtime/partition"]),
    ("executor", ["common/runtime/executor"]),
    ("graph_execution", ["common/runtime/graph_execution"]),
    ("session", ["common/runtime/session"]),
    ("saved_model", ["common/runtime/saved_model"]),
    ("worker", ["worker"]),
    ("master", ["master", "master/testing"]),
    ("tools", [
        "tools",
        "tools/benchmarks",
        "tools/cli",
        "tools/client",
        "tools/examples",
    ]),
    ("tests", [
        "tests/distributed",
        "tests/fuzz",
        "tests/gpu",
        "tests/interop",
        "tests/layering",
        "tests/multihost",
        "tests/repository",
        "tests/testdata",
    ]),
]

def _group(layer):
    return "//:layer_%s_and_up" % layer

def layer_of(package):
    """The layer `package` ("common/kernel") belongs to, or None."""
    for layer, packages in LAYERS:
        if package in packages:
            return layer
    return None

def layer_visibility():
    """Default visibility for the calling BUILD file: its own layer and those above."""
    package = native.package_name()
    layer = layer_of(package)
    if layer == None:
        fail("package %s is in no layer: add it to LAYERS in //:layers.bzl " % package +
             "and to the list in docs/architecture.md")
    return [_group(layer)]

def layer_package_groups():
    """One package_group per layer: its packages plus every layer above (root BUILD)."""
    for i, (layer, packages) in enumerate(LAYERS):
        native.package_group(
            name = "layer_%s_and_up" % layer,
            packages = ["//" + p for p in packages],
            includes = [_group(LAYERS[i + 1][0])] if i + 1 < len(LAYERS) else [],
        )
