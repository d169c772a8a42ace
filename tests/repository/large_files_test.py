"""No file over 1 MB enters the repository unless it is test data that must be that big.

Core dumps, binaries and build outputs have slipped in before (a 184 MB `core` at the
root). This lists every file git tracks in the work tree and fails on any over 1 MB
that ALLOWED does not name; a file added there needs its reason in the commit.
"""
import os
import subprocess
import sys
import unittest

LIMIT = 1 << 20
# Test data that has to be this size, with why. Empty: nothing needs it yet.
ALLOWED = {}


def workspace_root():
    base = os.environ.get("TEST_SRCDIR")
    marker = (os.path.join(base, os.environ.get("TEST_WORKSPACE", "tributary"), "README.md")
              if base else os.path.join(os.path.dirname(__file__), "..", "..", "README.md"))
    return os.path.dirname(os.path.realpath(marker))


class LargeFilesTest(unittest.TestCase):
    def test_no_tracked_file_over_1_mb(self):
        root = workspace_root()
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True)
        if listed.returncode != 0:
            self.fail("git ls-files failed in %s: %s" % (root, listed.stderr.decode()))
        names = [n for n in listed.stdout.decode().split("\0") if n]
        self.assertGreater(len(names), 100, "expected the whole repository's files")
        big = []
        for name in names:
            path = os.path.join(root, name)
            if os.path.isfile(path) and not os.path.islink(path):
                size = os.path.getsize(path)
                if size > LIMIT and name not in ALLOWED:
                    big.append("%s (%d bytes)" % (name, size))
        self.assertEqual(big, [], "files over 1 MB in the repository")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
