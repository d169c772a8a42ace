"""Counts test cases from Bazel's JUnit XML files and prints 'N passed, M failed'.

Bazel reports per target; a target holds many gtest cases, so the closing line counts
the <testcase> elements of every test.xml under bazel-testlogs. A target that failed
without producing cases (a crash, a build error) counts as one failure, so a broken
build can never read as green.
"""
import os
import sys
import glob
import xml.etree.ElementTree as ET


def xml_paths(testlogs: str, labels_file: str):
    """test.xml of each test target of this workspace (stale logs of deleted targets are
    ignored); a sharded target has one per shard, in shard_K_of_N folders."""
    with open(labels_file) as f:
        for label in f.read().split():
            package, _, name = label.lstrip("/").partition(":")
            folder = os.path.join(testlogs, package, name)
            shards = sorted(glob.glob(os.path.join(folder, "shard_*_of_*", "test.xml")))
            if shards and not os.path.exists(os.path.join(folder, "test.xml")):
                for path in shards:
                    yield label, path
            else:
                yield label, os.path.join(folder, "test.xml")


def count(testlogs: str, labels_file: str, extra_xml=()):
    passed = failed = skipped = 0
    paths = list(xml_paths(testlogs, labels_file)) + [(p, p) for p in extra_xml]
    for label, path in paths:
        try:
            tree = ET.parse(path)
        except (OSError, ET.ParseError):
            print(f"no test results for {label}", file=sys.stderr)
            failed += 1
            continue
        cases = list(tree.iter("testcase"))
        # Bazel writes a single synthetic case when the binary wrote no XML itself.
        for case in cases:
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            elif case.find("skipped") is not None or case.get("result") == "skipped" \
                    or case.get("status") == "notrun":
                skipped += 1
            else:
                passed += 1
        if not cases:
            failed += 1
    return passed, failed, skipped


def main():
    testlogs, labels_file, bazel_rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
    # Further arguments: JUnit files of checks run outside Bazel (tools/fuzz.sh --ci).
    passed, failed, skipped = count(testlogs, labels_file, sys.argv[4:])
    # A build failure or a target that failed outside its XML still fails the run.
    if bazel_rc not in (0, 4) and failed == 0:
        failed = 1
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    sys.exit(0 if failed == 0 and bazel_rc == 0 else 1)


if __name__ == "__main__":
    main()
