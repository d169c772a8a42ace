"""upward_dependency_test: proves that a dependency on a higher layer fails to build.

The target under test is built with analysis failures allowed (an analysis test's
transition), so its visibility error becomes data this rule can read instead of
stopping the build. The test passes only when the target failed analysis with
Bazel's visibility message; a probe that builds fails the test.
"""

def _impl(ctx):
    target = ctx.attr.target_under_test

    # Through a Starlark transition the attribute is a list of one target.
    if type(target) == "list":
        target = target[0]
    if AnalysisFailureInfo not in target:
        return [AnalysisTestResultInfo(
            success = False,
            message = "%s built, but it depends on a layer above its own: " % target.label +
                      "the layer visibility in //:layers.bzl is not enforced",
        )]
    messages = [cause.message for cause in target[AnalysisFailureInfo].causes.to_list()]
    found = [m for m in messages if ctx.attr.expected_error in m]
    return [AnalysisTestResultInfo(
        success = len(found) > 0,
        message = "\n".join(found if found else messages),
    )]

_allow_analysis_failures = analysis_test_transition(
    settings = {"//command_line_option:allow_analysis_failures": "True"},
)

upward_dependency_test = rule(
    implementation = _impl,
    attrs = {
        "target_under_test": attr.label(cfg = _allow_analysis_failures, mandatory = True),
        "expected_error": attr.string(default = "is not visible from target"),
    },
    test = True,
    analysis_test = True,
)
