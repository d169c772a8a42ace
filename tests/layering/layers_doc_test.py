"""docs/architecture.md's layer table matches //:layers.bzl, and every package uses it.

layers.bzl is the rule the build enforces (each package's default visibility is its
own layer and those above); the table in docs/architecture.md is what a reader sees.
This test fails when they disagree, when a package is not in a layer, or when a BUILD
file opens its targets to everyone instead of taking its layer's visibility.
"""
import ast
import os
import re
import sys
import unittest

# Files every test may use whatever its layer; they are data, not code.
PUBLIC_ALLOWED = {"tests/interop", "tests/testdata"}


def runfile(path):
    base = os.environ.get("TEST_SRCDIR")
    if base:
        return os.path.join(base, os.environ.get("TEST_WORKSPACE", "tributary"), path)
    return os.path.join(os.path.dirname(__file__), "..", "..", path)


def layers_from_bzl(text):
    """LAYERS = [...] of layers.bzl, read as a Python literal (it is one)."""
    match = re.search(r"^LAYERS = (\[.*?^\])", text, re.S | re.M)
    if not match:
        raise AssertionError("no LAYERS = [...] in layers.bzl")
    return [(name, list(packages)) for name, packages in ast.literal_eval(match.group(1))]


def layers_from_doc(text):
    """Rows `| n | layer | `pkg`, `pkg` | ... |` of the table under 'Layers and dependencies'."""
    section = text.split("## Layers and dependencies", 1)
    if len(section) != 2:
        raise AssertionError("docs/architecture.md has no 'Layers and dependencies' section")
    body = section[1].split("\n## ", 1)[0]
    rows = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit():
            rows.append((cells[1].strip("`"), re.findall(r"`([^`]+)/?`", cells[2])))
    return rows


class LayersDocTest(unittest.TestCase):
    def setUp(self):
        with open(runfile("layers.bzl")) as f:
            self.bzl_text = f.read()
        with open(runfile("docs/architecture.md")) as f:
            self.doc_text = f.read()
        self.layers = layers_from_bzl(self.bzl_text)
        # The runfiles are links into the work tree: its BUILD files are beside them.
        self.root = os.path.dirname(os.path.realpath(runfile("layers.bzl")))

    def test_doc_lists_the_same_layers_in_the_same_order(self):
        doc = [(name, [p.rstrip("/") for p in pkgs]) for name, pkgs in layers_from_doc(self.doc_text)]
        self.assertTrue(doc, "no layer table found in docs/architecture.md")
        self.assertEqual([n for n, _ in doc], [n for n, _ in self.layers],
                         "layer names or order differ between docs/architecture.md and layers.bzl")
        for (name, doc_pkgs), (_, bzl_pkgs) in zip(doc, self.layers):
            self.assertEqual(sorted(doc_pkgs), sorted(bzl_pkgs), f"packages of layer {name}")

    def test_every_package_is_in_exactly_one_layer(self):
        seen = {}
        for name, packages in self.layers:
            for p in packages:
                self.assertNotIn(p, seen, f"{p} is in layers {seen.get(p)} and {name}")
                seen[p] = name
        missing = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            rel = os.path.relpath(dirpath, self.root)
            dirnames[:] = [d for d in dirnames
                           if not d.startswith((".", "bazel-")) and not (rel == "." and d == "third_party")]
            if "BUILD.bazel" in filenames and rel != ".":
                if rel not in seen:
                    missing.append(rel)
        self.assertEqual(missing, [], "packages without a layer in layers.bzl")

    def test_every_package_takes_its_layers_visibility(self):
        for _, packages in self.layers:
            for p in packages:
                path = os.path.join(self.root, p, "BUILD.bazel")
                if not os.path.exists(path):
                    continue  # listed ahead of being created
                with open(path) as f:
                    text = f.read()
                self.assertRegex(text, r"default_visibility = layer_visibility\(\)",
                                 f"{p}/BUILD.bazel does not take its layer's visibility")
                if p not in PUBLIC_ALLOWED:
                    self.assertNotIn('"//visibility:public"', text,
                                     f"{p}/BUILD.bazel makes a target public, past its layer")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
