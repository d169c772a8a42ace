"""fuzz_target: one libFuzzer target and the regression test that replays its inputs.

    fuzz_target(name = "graph_def_fuzzer", srcs = [...], deps = [...])

makes
  * `name`: a binary whose LLVMFuzzerTestOneInput is driven by libFuzzer under
    `--config=fuzz` (clang, coverage, ASan + UBSan; tools/fuzz.sh builds it so),
    and by replay_main otherwise: a plain binary that runs the function once on
    every file it is given, so a finding can be replayed with the default build;
  * `name + "_regression_test"`: runs the target on its seed corpus (written by
    :fuzz_seeds) and on every file under regressions/<name>/ (each a finding that
    was fixed), in the default build of `bazel test //...`.
"""

def fuzz_target(name, srcs, deps = [], size = "small"):
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = srcs,
        deps = deps + select({
            "//tests/fuzz:fuzzing": [],
            "//conditions:default": ["//tests/fuzz:replay_main"],
        }),
        linkopts = select({
            "//tests/fuzz:fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
    )
    native.sh_test(
        name = name + "_regression_test",
        size = size,
        srcs = ["replay_test.sh"],
        args = [
            "$(rootpath :%s)" % name,
            "$(rootpath :fuzz_seeds)",
            name,
        ],
        data = [
            ":" + name,
            ":fuzz_seeds",
            "//tests/testdata:tf_graphs",
        ] + native.glob(["regressions/%s/**" % name], allow_empty = True),
    )
