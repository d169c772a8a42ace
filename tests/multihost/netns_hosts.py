"""Several hosts on one machine, made of Linux network namespaces.

Contract:
  * `Network(["ps0", "worker0", ...], rate="10gbit")` used as a context manager
    builds, on entry, one bridge in the root namespace and, per host, one network
    namespace holding one end of a veth pair (named eth0 there, with its own IPv4
    address on a private /24, loopback up); the other end is a port of the bridge.
    Both ends are shaped by a `tc` tbf qdisc at `rate` (None: unshaped), so each
    host's link carries at most `rate` each way.
  * `network.host(name)` is a `Host`: its `ip`, `popen()`/`run()` to start a
    process inside its namespace (`ip netns exec`), `cut()`/`restore()` to take
    its link down and up again.
  * On exit, and from atexit / SIGTERM / SIGINT (which stop the test run) as
    well, every process started
    through a Host is killed (by its pid: SIGTERM, then SIGKILL) and every
    namespace and link made is deleted. Interface and namespace names carry a
    per-run prefix "trmh<pid>"; a new run first deletes what an earlier run left
    behind when that run's pid is no longer alive (a crashed or SIGKILLed run).
  * `unavailable_reason()` says why namespaces cannot be made here (not root, no
    `ip`/`tc`, permission denied), or None; tests skip with that message.

Interface names must fit Linux's 15-character limit: "trmh" + pid (at most 7
digits) + a 2-3 character suffix is at most 14.
"""

import atexit
import ctypes
import ipaddress
import os
import re
import shutil
import signal
import subprocess
import time

PREFIX = "trmh"
SUBNET = ipaddress.ip_network("10.231.0.0/24")
FIRST_HOST = 10  # host i is 10.231.0.(10 + i)
_NAME_RE = re.compile(r"^%s(\d+)" % PREFIX)


def _tool(name):
    """iproute2 lives in /usr/sbin or /sbin, which a test's PATH may lack."""
    return (shutil.which(name)
            or shutil.which(name, path=os.pathsep.join(["/usr/sbin", "/sbin", "/usr/bin", "/bin"]))
            or name)


IP = _tool("ip")
TC = _tool("tc")


def _ip(*args, check=True, timeout=30):
    proc = subprocess.run([IP, *args], capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise RuntimeError("ip %s: %s" % (" ".join(args), proc.stderr.strip()))
    return proc


def _tc(*args, check=True):
    proc = subprocess.run([TC, *args], capture_output=True, text=True, timeout=30)
    if check and proc.returncode != 0:
        raise RuntimeError("tc %s: %s" % (" ".join(args), proc.stderr.strip()))
    return proc


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def unavailable_reason():
    """Why this machine cannot make namespaces, or None when it can. Probes by
    making (and deleting) a namespace, since being root is not enough inside some
    containers."""
    for tool in (IP, TC):
        if not os.path.isabs(tool):
            return "`%s` is not installed (iproute2)" % tool
    if os.geteuid() != 0:
        return "network namespaces need root (euid %d)" % os.geteuid()
    probe = "%s%dprobe" % (PREFIX, os.getpid())
    try:
        made = _ip("netns", "add", probe, check=False)
        if made.returncode != 0:
            return "cannot make a network namespace: %s" % made.stderr.strip()
        veth = _ip("link", "add", probe[:15], "type", "bridge", check=False)
        if veth.returncode != 0:
            return "cannot make a bridge: %s" % veth.stderr.strip()
        _ip("link", "del", probe[:15], check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return "cannot run ip: %s" % e
    finally:
        _ip("netns", "del", probe, check=False)
    return None


def remove_stale():
    """Deletes namespaces and links of earlier runs whose process is gone."""
    me = os.getpid()

    def stale(name):
        m = _NAME_RE.match(name)
        return m is not None and int(m.group(1)) != me and not _pid_alive(int(m.group(1)))

    for line in _ip("netns", "list", check=False).stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        if stale(name):
            _kill_namespace_processes(name)
            _ip("netns", "del", name, check=False)
    for line in _ip("-o", "link", "show", check=False).stdout.splitlines():
        # "7: trmh123h0@if6: <...>" -> "trmh123h0"
        parts = line.split(":", 2)
        if len(parts) > 1:
            name = parts[1].strip().split("@")[0]
            if stale(name):
                _ip("link", "del", name, check=False)


def _kill_namespace_processes(ns):
    """Kills what still runs in namespace ns (left by a dead run), by pid."""
    pids = _ip("netns", "pids", ns, check=False).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def _die_with_parent():
    """In the child before exec: SIGKILL when the process that started it dies
    (PR_SET_PDEATHSIG survives `ip netns exec`'s exec), so a test killed with
    SIGKILL leaves no daemon running."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Host:
    """One host: a network namespace with one link to the bridge."""

    def __init__(self, network, name, index):
        self.network = network
        self.name = name
        self.index = index
        self.ip = str(SUBNET.network_address + FIRST_HOST + index)
        tag = network.prefix
        self.netns = "%s-%s" % (tag, name)
        self.bridge_port = "%sh%d" % (tag, index)  # root namespace side
        assert len(self.bridge_port) <= 15, self.bridge_port

    def _argv(self, argv):
        return [IP, "netns", "exec", self.netns, *argv]

    def popen(self, argv, **kwargs):
        """Starts argv inside this host; the process is killed at teardown (and
        when this process dies)."""
        kwargs.setdefault("preexec_fn", _die_with_parent)
        proc = subprocess.Popen(self._argv(argv), **kwargs)
        self.network._procs.append(proc)
        return proc

    def run(self, argv, timeout, **kwargs):
        """Runs argv inside this host to completion (subprocess.run; killed after
        `timeout` seconds, raising subprocess.TimeoutExpired)."""
        kwargs.setdefault("capture_output", True)
        kwargs.setdefault("text", True)
        return subprocess.run(self._argv(argv), timeout=timeout, **kwargs)

    def cut(self):
        """Takes the link down: the bridge side goes down, so the host loses its
        carrier and packets both ways are dropped (no RST, no ICMP): what a
        pulled cable or a dead switch port looks like to TCP."""
        _ip("link", "set", self.bridge_port, "down")

    def restore(self):
        _ip("link", "set", self.bridge_port, "up")


class Network:
    """The bridge and hosts of one run; a context manager (see the module doc)."""

    def __init__(self, hosts, rate="10gbit"):
        self.prefix = "%s%d" % (PREFIX, os.getpid())
        self.bridge = self.prefix + "br"
        self.rate = rate
        self.hosts = {name: Host(self, name, i) for i, name in enumerate(hosts)}
        self._procs = []
        self._made_bridge = False
        self._made_ns = []

    def host(self, name):
        return self.hosts[name]

    def __enter__(self):
        _install_exit_hooks(self)
        remove_stale()
        try:
            self._build()
        except BaseException:
            self.teardown()
            raise
        return self

    def __exit__(self, *exc):
        self.teardown()
        return False

    def _shape(self, dev, netns=None):
        if self.rate is None:
            return
        # tbf needs a bucket of at least one timer tick's worth of bytes at the
        # rate (and more than a 64 KiB GSO packet), or it throttles far below
        # it; rate/250 covers a 250 Hz tick. latency bounds the queue.
        bits = _rate_bits(self.rate)
        burst = max(256 * 1024, bits // 8 // 250)
        cmd = ["qdisc", "replace", "dev", dev, "root", "tbf", "rate", self.rate,
               "burst", str(burst), "latency", "20ms"]
        if netns:
            proc = subprocess.run([IP, "netns", "exec", netns, TC, *cmd],
                                  capture_output=True, text=True, timeout=30)
            if proc.returncode != 0:
                raise RuntimeError("tc %s: %s" % (" ".join(cmd), proc.stderr.strip()))
        else:
            _tc(*cmd)

    def _build(self):
        _ip("link", "add", self.bridge, "type", "bridge")
        self._made_bridge = True
        _ip("link", "set", self.bridge, "up")
        for host in self.hosts.values():
            _ip("netns", "add", host.netns)
            self._made_ns.append(host.netns)
            inner = "%sn%d" % (self.prefix, host.index)
            _ip("link", "add", host.bridge_port, "type", "veth", "peer", "name", inner)
            _ip("link", "set", inner, "netns", host.netns)
            _ip("link", "set", host.bridge_port, "master", self.bridge)
            _ip("link", "set", host.bridge_port, "up")
            ns = ("-n", host.netns)
            _ip(*ns, "link", "set", inner, "name", "eth0")
            _ip(*ns, "addr", "add", "%s/%d" % (host.ip, SUBNET.prefixlen), "dev", "eth0")
            _ip(*ns, "link", "set", "eth0", "up")
            _ip(*ns, "link", "set", "lo", "up")
            self._shape(host.bridge_port)
            self._shape("eth0", netns=host.netns)

    def teardown(self):
        """Kills the processes started in the hosts, then deletes namespaces and
        links. Safe to call more than once and on a half-built network."""
        global _tearing_down
        _tearing_down += 1
        try:
            self._teardown()
        finally:
            _tearing_down -= 1

    def _teardown(self):
        for proc in self._procs:
            if proc.poll() is None:
                try:
                    proc.terminate()
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 10
        for proc in self._procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        self._procs.clear()
        for ns in self._made_ns:
            # Anything a test started some other way would keep the namespace.
            _kill_namespace_processes(ns)
            _ip("netns", "del", ns, check=False)
        self._made_ns.clear()
        for host in self.hosts.values():
            # Deleting the namespace deletes its veth end and so the pair; this
            # is for a pair made before its end moved into the namespace.
            if os.path.exists("/sys/class/net/" + host.bridge_port):
                _ip("link", "del", host.bridge_port, check=False)
        if self._made_bridge:
            _ip("link", "del", self.bridge, check=False)
            self._made_bridge = False
        _networks.discard(self)


def _rate_bits(rate):
    m = re.fullmatch(r"(\d+)([kmg]?)bit", rate.lower())
    if not m:
        raise ValueError("rate like 10gbit, 500mbit: %r" % rate)
    return int(m.group(1)) * {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[m.group(2)]


_networks = set()
_tearing_down = 0  # > 0 while a teardown runs
_hooks_installed = False


def _install_exit_hooks(network):
    """atexit, and SIGTERM/SIGINT turned into SystemExit (Bazel's test timeout
    sends SIGTERM), so teardown runs even when nothing else would."""
    global _hooks_installed
    _networks.add(network)
    if _hooks_installed:
        return
    _hooks_installed = True
    atexit.register(lambda: [n.teardown() for n in list(_networks)])

    def _exit(signum, _frame):
        if _tearing_down:
            return  # a second signal must not cut teardown short
        # KeyboardInterrupt, not SystemExit: unittest records SystemExit as a
        # test error and goes on to the next test (which Bazel's SIGKILL would
        # then interrupt with its network up); KeyboardInterrupt stops the
        # whole run, and the atexit hook above tears down.
        raise KeyboardInterrupt("signal %d" % signum)

    for sig in (signal.SIGTERM, signal.SIGINT):
        # Also over SIG_IGN, which a parent shell may have left us with: a
        # timeout's SIGTERM must still tear down. A handler someone installed
        # on purpose (a Python function) is left alone.
        if signal.getsignal(sig) in (signal.SIG_DFL, signal.SIG_IGN, None,
                                     signal.default_int_handler):
            signal.signal(sig, _exit)
