"""Every reference in the repository's Markdown resolves inside the repository.

Checks each Markdown file git would ship (README.md, docs/, the folders' READMEs):
relative links `[text](path)` must name a file or folder that exists, and no text may
point outside the work tree (`../shared/...`, absolute /work paths), since a clone has
only what is in it. External sites are cited by URL and not fetched.
"""
import os
import re
import sys
import unittest

LINK = re.compile(r"\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"(?<![\w.])(\.\./shared\b|/work/\w+)")


def workspace_root():
    base = os.environ.get("TEST_SRCDIR")
    marker = (os.path.join(base, os.environ.get("TEST_WORKSPACE", "tributary"), "README.md")
              if base else os.path.join(os.path.dirname(__file__), "..", "..", "README.md"))
    # Runfiles are links into the work tree, where every Markdown file is.
    return os.path.dirname(os.path.realpath(marker))


def markdown_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames
                       if not d.startswith((".", "bazel-")) and not (rel == "." and d == "third_party")]
        for name in filenames:
            if name.endswith(".md"):
                yield os.path.join(dirpath, name)


class DocsLinksTest(unittest.TestCase):
    def setUp(self):
        self.root = workspace_root()
        self.files = list(markdown_files(self.root))

    def test_found_the_docs(self):
        names = {os.path.relpath(p, self.root) for p in self.files}
        self.assertIn("docs/architecture.md", names)
        self.assertIn("README.md", names)

    def test_relative_links_resolve(self):
        broken = []
        for path in self.files:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for target in LINK.findall(text):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue  # a URL or an anchor on the same page
                target = target.split("#", 1)[0]
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
                if not resolved.startswith(self.root) or not os.path.exists(resolved):
                    broken.append(f"{os.path.relpath(path, self.root)}: ({target})")
        self.assertEqual(broken, [], "links that do not resolve inside the repository")

    def test_no_reference_leaves_the_work_tree(self):
        found = []
        for path in self.files:
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if OUTSIDE.search(line):
                        found.append(f"{os.path.relpath(path, self.root)}:{number}: {line.strip()}")
        self.assertEqual(found, [], "references to files outside the repository")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
