"""Runs a unittest module and writes its cases to Bazel's $XML_OUTPUT_FILE (JUnit XML).

Bazel only sees one pass/fail per target; writing each case lets tools/test.sh count
the interop checks one by one, as it does gtest cases.
"""
import argparse
import importlib.util
import os
import sys
import time
import unittest
import xml.etree.ElementTree as ET


class _Recorder(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.records = []  # (test id, outcome, message, seconds)
        self._start = 0.0

    def startTest(self, test):
        self._start = time.monotonic()
        super().startTest(test)

    def _record(self, test, outcome, message=""):
        self.records.append((test.id(), outcome, message, time.monotonic() - self._start))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "failure", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "error", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skipped", reason)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            outcome = "failure" if issubclass(err[0], test.failureException) else "error"
            self._record(subtest, outcome, self._exc_info_to_string(err, test))


def _write_xml(name, records):
    path = os.environ.get("XML_OUTPUT_FILE")
    if not path:
        return
    suite = ET.Element("testsuite", name=name, tests=str(len(records)))
    for test_id, outcome, message, seconds in records:
        case = ET.SubElement(suite, "testcase", name=test_id, classname=name,
                             time=f"{seconds:.3f}")
        if outcome != "passed":
            ET.SubElement(case, outcome, message=message[:200]).text = message
    root = ET.Element("testsuites")
    root.append(suite)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip", help="report the whole module as skipped with this reason")
    parser.add_argument("script")
    args = parser.parse_args()
    name = os.path.splitext(os.path.basename(args.script))[0]
    if args.skip:
        _write_xml(name, [(name, "skipped", args.skip, 0.0)])
        return 0
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
    # Helpers shared by the tests run this way (daemon_process.py) sit here.
    sys.path.insert(1, os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location(name, args.script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    runner = unittest.TextTestRunner(verbosity=2, resultclass=_Recorder)
    result = runner.run(suite)
    _write_xml(name, result.records)
    if result.testsRun == 0:
        print("no test ran", file=sys.stderr)
        return 1
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
