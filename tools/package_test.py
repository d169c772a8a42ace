"""tools/package.sh makes a Debian package an ops team can install: checked with
dpkg-deb (--info: name, version, architecture, Depends from dpkg-shlibdeps;
--contents: paths, owners, modes; the conffiles), by running the packaged
binaries' --version, and with lintian (no error or warning). Without lintian
that check is skipped, never passed.
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

BINARIES = {"tributary": os.path.join("tools", "tributary"),
            "tributary-master": os.path.join("master", "tributary-master"),
            "tributary-worker": os.path.join("worker", "tributary-worker")}


class PackageTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        bins = os.path.join(cls.tmp, "bin")
        os.makedirs(bins)
        for name, path in BINARIES.items():
            shutil.copy(path, os.path.join(bins, name))
        proc = subprocess.run(["tools/package.sh", "--bin-dir", bins, "--out",
                               os.path.join(cls.tmp, "out"), "--fast"],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        cls.deb = proc.stdout.strip().splitlines()[-1]
        with open("VERSION") as f:
            cls.version = f.read().strip()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def dpkg_deb(self, *args):
        return subprocess.run(["dpkg-deb", *args], capture_output=True, text=True,
                              check=True, timeout=120).stdout

    def test_name_and_control_fields(self):
        self.assertEqual(os.path.basename(self.deb),
                         "tributary_%s_amd64.deb" % self.version)
        fields = dict(re.findall(r"^ (\S+): (.*)$", self.dpkg_deb("--info", self.deb), re.M))
        self.assertEqual(fields["Package"], "tributary")
        self.assertEqual(fields["Version"], self.version)
        self.assertEqual(fields["Architecture"], "amd64")
        depends = [d.split()[0] for d in fields["Depends"].split(", ")]
        for package in ("adduser", "libgrpc++1.51", "libprotobuf32", "libsystemd0",
                        "libc6", "libstdc++6"):
            self.assertIn(package, depends)

    def test_contents_owners_and_modes(self):
        entries = {}
        for line in self.dpkg_deb("--contents", self.deb).splitlines():
            mode, owner, _, _, _, path = line.split(None, 5)
            entries[path.lstrip(".")] = (mode, owner)
        expected = {
            "/usr/bin/tributary": "-rwxr-xr-x",
            "/usr/bin/tributary-master": "-rwxr-xr-x",
            "/usr/bin/tributary-worker": "-rwxr-xr-x",
            "/lib/systemd/system/tributary-master.service": "-rw-r--r--",
            "/lib/systemd/system/tributary-worker@.service": "-rw-r--r--",
            "/etc/tributary/tributary.env": "-rw-r--r--",
            "/etc/tributary/cluster.json": "-rw-r--r--",
            "/etc/tributary/tasks/worker-0.env": "-rw-r--r--",
            "/usr/share/doc/tributary/copyright": "-rw-r--r--",
            "/usr/share/doc/tributary/changelog.gz": "-rw-r--r--",
        }
        for path, mode in expected.items():
            self.assertIn(path, entries)
            self.assertEqual(entries[path], (mode, "root/root"), path)

    def test_installed_files_work(self):
        root = os.path.join(self.tmp, "root")
        control = os.path.join(self.tmp, "control")
        self.dpkg_deb("-x", self.deb, root)
        self.dpkg_deb("-e", self.deb, control)
        for name in BINARIES:
            proc = subprocess.run([os.path.join(root, "usr", "bin", name), "--version"],
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertTrue(proc.stdout.startswith("%s %s (commit " % (name, self.version)),
                            proc.stdout)
        with open(os.path.join(root, "lib/systemd/system/tributary-worker@.service")) as f:
            unit = f.read()
        self.assertIn("ExecStart=/usr/bin/tributary-worker", unit)
        self.assertNotIn("/usr/local/bin", unit)
        with open(os.path.join(control, "conffiles")) as f:
            conffiles = f.read().split()
        self.assertIn("/etc/tributary/tributary.env", conffiles)
        self.assertTrue(all(c.startswith("/etc/") for c in conffiles), conffiles)
        with open(os.path.join(control, "postinst")) as f:
            postinst = f.read()
        self.assertIn("adduser --system", postinst)
        self.assertEqual(subprocess.run(["sh", "-n", os.path.join(control, "postinst")]
                                        ).returncode, 0)

    def test_lintian_finds_no_error_or_warning(self):
        if shutil.which("lintian") is None:
            self.skipTest("lintian is not installed (tools/setup.sh --tests)")
        proc = subprocess.run(["lintian", "--tag-display-limit", "0", self.deb],
                              capture_output=True, text=True, timeout=600)
        tags = [line for line in proc.stdout.splitlines()
                if re.match(r"^[EW]: ", line)]
        self.assertEqual(tags, [], proc.stdout + proc.stderr)


if __name__ == "__main__":
    unittest.main()
