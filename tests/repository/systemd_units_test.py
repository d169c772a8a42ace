"""deploy/systemd's units pass `systemd-analyze verify` with no complaint (their
paths pointed at the built daemons and at copies of the environment files, as an
install would have them), and they are Type=notify with a watchdog, which the
daemons implement (common/daemon/systemd_notify.h; the daemons' main tests check
the notifications). A corrupted copy must be complained about, so the check can
fail. Skipped (never passed) without systemd-analyze.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

UNITS = os.path.join("deploy", "systemd")


class SystemdUnitsTest(unittest.TestCase):

    def setUp(self):
        self.analyze = shutil.which("systemd-analyze")
        if self.analyze is None:
            self.skipTest("systemd-analyze is not installed")
        self.dir = tempfile.mkdtemp(prefix="units-", dir="/tmp")
        self.addCleanup(shutil.rmtree, self.dir)
        for env in ("tributary.env", os.path.join("tasks", "worker-0.env")):
            shutil.copy(os.path.join(UNITS, env), self.dir)

    def installed(self, unit, instance=None, edit=lambda text: text):
        """`unit` as installed here: binaries and environment files moved."""
        with open(os.path.join(UNITS, unit)) as f:
            text = f.read()
        binaries = os.path.abspath(os.path.join("master" if "master" in unit else "worker"))
        text = text.replace("/usr/local/bin/", binaries + "/")
        text = text.replace("/etc/tributary/tasks/", self.dir + "/")
        text = text.replace("/etc/tributary/", self.dir + "/")
        path = os.path.join(self.dir, unit.replace("@", "@" + instance) if instance else unit)
        with open(path, "w") as f:
            f.write(edit(text))
        return path

    def verify(self, *paths):
        proc = subprocess.run([self.analyze, "verify", "--man=no", *paths],
                              capture_output=True, text=True, timeout=120)
        # Complaints about the host's own units are not ours.
        ours = [line for line in (proc.stdout + proc.stderr).splitlines()
                if self.dir in line or "tributary" in line]
        return proc.returncode, ours

    def test_units_verify_cleanly(self):
        rc, complaints = self.verify(
            self.installed("tributary-master.service"),
            self.installed("tributary-worker@.service", instance="worker-0"))
        self.assertEqual(rc, 0, complaints)
        self.assertEqual(complaints, [])

    def test_a_corrupted_unit_is_complained_about(self):
        rc, complaints = self.verify(self.installed(
            "tributary-master.service",
            edit=lambda t: t.replace("WatchdogSec=30", "WatchdogSec=banana")))
        self.assertTrue(rc != 0 or complaints, "systemd-analyze accepted a bad unit")

    def test_units_are_notify_with_a_watchdog(self):
        for unit in ("tributary-master.service", "tributary-worker@.service"):
            with open(os.path.join(UNITS, unit)) as f:
                lines = f.read().splitlines()
            for setting in ("Type=notify", "NotifyAccess=main", "WatchdogSec=30"):
                self.assertIn(setting, lines, unit)


if __name__ == "__main__":
    unittest.main()
