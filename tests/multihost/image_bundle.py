"""Tributary's container image (tools/image.sh) unpacked into an OCI runtime
bundle, and its process run the way a container runtime runs it, without one.

Contract:
  * `build_image(bin_dir, out)` runs tools/image.sh with the binaries in
    bin_dir and returns (OCI layout path, docker-archive path).
  * `unpack(archive, tag, dest)` turns the docker-archive back into an OCI
    layout with skopeo and unpacks it with umoci into the bundle `dest`
    (dest/config.json, dest/rootfs): the image as shipped, not the build's
    root.
  * `ImageBinaries(bundle, volumes)` is host_cluster.Binaries for daemons that
    run from the image: `worker`/`master`/`cli` are the entrypoint's words,
    and `command(argv)` gives the argv that, run inside a host's network
    namespace (`ip netns exec` gives each command its own mount namespace),
    makes the rootfs read-only (as deploy/kubernetes' pods have it),
    bind-mounts /dev, mounts /proc and each volume (host dir -> dir in the
    image, read-only) into it, then chroots into it as the bundle's user, with
    its environment and working directory, and execs its entrypoint with
    argv. Arguments that name a path under a volume's host dir are rewritten
    to the path inside. The command execs all the way, so its pid is the
    daemon's. The mounts end with the namespace's last process: nothing is
    left mounted on the host.
"""

import json
import os
import subprocess

IMAGE_BUILD_TIMEOUT_S = 900

# $1 rootfs, $2 uid:gid, $3 working directory, $4 number of volumes, then
# (host dir, dir in the image) pairs, then NAME=VALUE environment entries and
# the process's argv (env(1) tells them apart).
_RUN_IN_ROOT = r'''
set -e
root=$1 ids=$2 cwd=$3 volumes=$4
shift 4
mount --bind "$root" "$root"
mount -o remount,bind,ro "$root"
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
while [ "$volumes" -gt 0 ]; do
  mount --bind "$1" "$root$2"
  mount -o remount,bind,ro "$root$2"
  shift 2
  volumes=$((volumes - 1))
done
exec chroot --userspec="$ids" "$root" /usr/bin/env -i -C "$cwd" "$@"
'''


def build_image(bin_dir, out):
    proc = subprocess.run(["tools/image.sh", "--bin-dir", bin_dir, "--out", out],
                          capture_output=True, text=True, timeout=IMAGE_BUILD_TIMEOUT_S)
    if proc.returncode != 0:
        raise RuntimeError("tools/image.sh failed (%d):\n%s" % (proc.returncode, proc.stderr))
    layout, archive = proc.stdout.split()[-2:]
    return layout, archive


def run_tool(argv, timeout=300):
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (argv[0], proc.returncode, proc.stderr))
    return proc.stdout


def unpack(archive, tag, dest):
    layout = dest + "-layout"
    run_tool(["skopeo", "--insecure-policy", "copy", "--quiet",
              "docker-archive:" + archive, "oci:%s:%s" % (layout, tag)])
    run_tool(["umoci", "unpack", "--image", "%s:%s" % (layout, tag), dest])
    return dest


class ImageBinaries:
    worker = "worker"
    master = "master"
    cli = "tributary"
    train = None  # not in the image: the host's client runs against it

    def __init__(self, bundle, volumes=None):
        with open(os.path.join(bundle, "config.json")) as f:
            self.config = json.load(f)
        self.rootfs = os.path.join(bundle, self.config["root"]["path"])
        process = self.config["process"]
        self.user = "%d:%d" % (process["user"]["uid"], process["user"]["gid"])
        self.volumes = dict(volumes or {})
        for inside in self.volumes.values():
            os.makedirs(os.path.join(self.rootfs, inside.lstrip("/")), exist_ok=True)
        self._process = process

    def missing(self):
        return []

    def _inside(self, arg):
        for host_dir, inside in self.volumes.items():
            if arg == host_dir or arg.startswith(host_dir + "/"):
                return inside + arg[len(host_dir):]
        return arg

    def command(self, argv):
        pairs = [p for host_dir, inside in self.volumes.items() for p in (host_dir, inside)]
        return ["sh", "-c", _RUN_IN_ROOT, "run-in-image", self.rootfs, self.user,
                self._process.get("cwd", "/"), str(len(self.volumes)), *pairs,
                *self._process.get("env", []), *self._process["args"],
                *[self._inside(a) for a in argv]]
