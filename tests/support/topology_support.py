"""Several workers behind a load balancer, as real processes: redis-server, two demo-server
workers and HAProxy round-robin in front, all on loopback addresses.

The binaries come from Debian's packages: found on PATH, else in ``tests/.tools`` (ignored),
where ``install_tools`` puts them (``apt-get install`` as root, else ``apt-get download`` and
``dpkg -x``). Their versions are checked (Redis >= 7.0, HAProxy >= 2.6) instead of pinned. A
binary that cannot be had fails the test: the topology tests never skip.

Run ``python tests/support/topology_support.py`` (``make topology-tools``) to install them ahead.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tests" / ".tools"
"""Where the Debian packages are unpacked when they are not installed system-wide."""
PACKAGES = (
    "redis-server",
    "redis-tools",
    "libjemalloc2",
    "liblzf1",
    "haproxy",
    "liblua5.3-0",
    "libopentracing-c-wrapper0",
    "libopentracing1",
)
"""What ``apt-get download`` fetches to run redis-server and haproxy from ``TOOLS``."""
MIN_REDIS = (7, 0)
MIN_HAPROXY = (2, 6)
START_S = 30.0
"""Longest any process of the topology may take to accept connections."""
WORKER_HOSTS = ("127.0.0.2", "127.0.0.3")
STATE_KEY = "topology-test-state-key-0123456789"
"""The ``MCPGEN_STATE_KEY`` every worker shares."""
STATE_ENV = "MCPGEN_STATE_KEY"


def _find(name: str, sub: str) -> Path | None:
    """A binary on PATH or unpacked under ``TOOLS``."""
    found = shutil.which(name)
    if found is not None:
        return Path(found)
    local = TOOLS / sub / name
    return local if local.is_file() else None


def install_tools() -> None:
    """Install redis-server and haproxy: system-wide as root, else unpacked into ``TOOLS``."""
    if os.geteuid() == 0:
        subprocess.run(["apt-get", "update", "-q"], check=False, capture_output=True)
        install = ["apt-get", "install", "-y", "-q", "--no-install-recommends"]
        subprocess.run([*install, "redis-server", "haproxy"], check=True, capture_output=True)
        return
    TOOLS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["apt-get", "download", *PACKAGES], cwd=folder, check=True)
        for deb in Path(folder).glob("*.deb"):
            subprocess.run(["dpkg", "-x", str(deb), str(TOOLS)], check=True)


def _version(argv: list[str], pattern: str) -> tuple[int, int]:
    out = subprocess.run(argv, capture_output=True, text=True, env=_env(), check=False)
    match = re.search(pattern, out.stdout + out.stderr)
    assert match is not None, f"cannot read the version of {argv[0]}: {out.stdout!r}"
    return int(match.group(1)), int(match.group(2))


def _env() -> dict[str, str]:
    """The environment the binaries run in (their libraries when unpacked under ``TOOLS``)."""
    env = dict(os.environ)
    libs = TOOLS / "usr" / "lib" / "x86_64-linux-gnu"
    if libs.is_dir():
        env["LD_LIBRARY_PATH"] = f"{libs}:{env.get('LD_LIBRARY_PATH', '')}"
    return env


def tools() -> tuple[Path, Path]:
    """redis-server and haproxy, installed if missing, versions checked (else the test fails)."""
    redis, haproxy = _find("redis-server", "usr/bin"), _find("haproxy", "usr/sbin")
    if redis is None or haproxy is None:
        install_tools()
        redis, haproxy = _find("redis-server", "usr/bin"), _find("haproxy", "usr/sbin")
    assert redis is not None and haproxy is not None, "redis-server or haproxy is missing"
    redis_version = _version([str(redis), "--version"], r"v=(\d+)\.(\d+)")
    assert redis_version >= MIN_REDIS, f"Redis {redis_version} is older than {MIN_REDIS}"
    haproxy_version = _version([str(haproxy), "-v"], r"version (\d+)\.(\d+)")
    assert haproxy_version >= MIN_HAPROXY, f"HAProxy {haproxy_version} is older than {MIN_HAPROXY}"
    return redis, haproxy


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on (now) at ``host``."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def wait_listening(host: str, port: int, process: subprocess.Popen[bytes], log: IO[bytes]) -> None:
    """Return once ``host:port`` accepts connections; fail with the log if it never does."""
    deadline = time.monotonic() + START_S
    while True:
        with socket.socket() as sock:
            if sock.connect_ex((host, port)) == 0:
                return
        if process.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            raise AssertionError(f"{process.args} did not listen: {log.read()[-2000:]!r}")
        time.sleep(0.05)


@dataclass
class Proc:
    """One process of the topology, with its address and log."""

    process: subprocess.Popen[bytes]
    host: str
    port: int
    log: IO[bytes]
    argv: list[str] = field(default_factory=list)

    def worker_id(self) -> str:
        """The worker id a worker logged when it joined the shared Redis."""
        deadline = time.monotonic() + START_S
        while True:
            self.log.seek(0)
            found = re.search(rb"as worker ([0-9a-f]{32})", self.log.read())
            if found is not None:
                return found.group(1).decode()
            assert time.monotonic() < deadline, f"{self.argv} logged no worker id"
            time.sleep(0.05)

    def signal(self, number: signal.Signals) -> None:
        """Send a signal (SIGKILL, SIGSTOP, SIGCONT)."""
        os.kill(self.process.pid, number)

    def stop(self) -> None:
        """Kill it (bounded) and close its log."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGCONT)  # a stopped process cannot die
            self.process.kill()
        self.process.wait(10)
        self.log.close()


def start(argv: list[str], host: str, port: int, env: dict[str, str] | None = None) -> Proc:
    """Start ``argv`` and wait until it listens on ``host:port``."""
    log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by Proc.stop; not a pipe: never blocks)
    process = subprocess.Popen(
        argv, cwd=ROOT, env=env or _env(), stdout=log, stderr=subprocess.STDOUT
    )
    proc = Proc(process, host, port, log, argv)
    try:
        wait_listening(host, port, process, log)
    except BaseException:
        proc.stop()
        raise
    return proc


HAPROXY_CONFIG = """\
global
    maxconn 2000
    log stdout format raw local0
defaults
    mode http
    log global
    option httplog
    option dontlog-normal
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    option http-no-delay
    retries 2
    retry-on conn-failure
    option redispatch
frontend mcp
    bind 127.0.0.1:{port}
    default_backend workers
backend workers
    balance roundrobin
    http-reuse never
    option httpchk GET /mcp
    http-check expect rstatus ^[234]
    timeout check 500ms
{servers}
"""
"""Round-robin per request; a connection refused by a dead worker is retried on the other (no
idle connections to workers are reused, so a dead worker refuses rather than drops a request
it never saw); a worker that gives no HTTP answer (any status) to two checks in a row gets no
more requests. Only requests that ended abnormally are logged (one line each, naming the
worker: ``workers/w1``), to HAProxy's output."""


@dataclass
class Topology:
    """Redis, the workers and HAProxy; ``url`` is the MCP endpoint through HAProxy."""

    redis: Proc
    workers: list[Proc]
    haproxy: Proc
    redis_binary: Path
    shared_redis: str
    """The Redis URL the workers share ("" when they share none)."""

    @property
    def url(self) -> str:
        """The MCP endpoint through the load balancer."""
        return f"http://127.0.0.1:{self.haproxy.port}/mcp"

    @property
    def redis_url(self) -> str:
        """The shared Redis."""
        return f"redis://127.0.0.1:{self.redis.port}/0"

    def worker_url(self, index: int) -> str:
        """One worker's own MCP endpoint (bypassing the load balancer)."""
        worker = self.workers[index]
        return f"http://{worker.host}:{worker.port}/mcp"

    def restart_worker(self, index: int) -> None:
        """Kill worker ``index`` (if alive) and start a fresh one at its address."""
        old = self.workers[index]
        old.stop()
        argv = worker_argv(old.host, old.port, self.shared_redis or None)
        self.workers[index] = start(argv, old.host, old.port, _env() | {STATE_ENV: STATE_KEY})

    def restart_redis(self) -> None:
        """Kill Redis and start it again, empty, on the same port."""
        self.redis.stop()
        self.redis = start_redis(self.redis_binary, self.redis.port)


def start_redis(binary: Path, port: int | None = None) -> Proc:
    """A redis-server on a free loopback port, keeping nothing on disk."""
    port = port or free_port()
    argv = [str(binary), "--port", str(port), "--bind", "127.0.0.1"]
    argv += ["--save", "", "--appendonly", "no", "--protected-mode", "no"]
    return start(argv, "127.0.0.1", port)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A redis-server of its own (for the tests of one module); yields its URL."""
    server = start_redis(tools()[0])
    try:
        yield f"redis://127.0.0.1:{server.port}/0"
    finally:
        server.stop()


def worker_argv(host: str, port: int, redis_url: str | None) -> list[str]:
    """The demo server (plus a slow tool) as one worker (sharing ``redis_url`` when given)."""
    script = ROOT / "tests" / "support" / "topology_worker.py"
    argv = [sys.executable, str(script), "--http", f"{host}:{port}"]
    return argv + (["--redis", redis_url] if redis_url else [])


@contextlib.contextmanager
def topology(shared: bool = True, workers: int = len(WORKER_HOSTS)) -> Iterator[Topology]:
    """Start Redis, ``workers`` workers (sharing it when ``shared``) and HAProxy in front of
    them; kill all at the end."""
    redis_binary, haproxy_binary = tools()
    procs: list[Proc] = []
    redis_url: str | None = None
    try:
        redis = start_redis(redis_binary)
        procs.append(redis)
        if shared:
            redis_url = f"redis://127.0.0.1:{redis.port}/0"
        env = _env() | {STATE_ENV: STATE_KEY}
        started: list[Proc] = []
        for host in WORKER_HOSTS[:workers]:
            port = free_port(host)
            started.append(start(worker_argv(host, port, redis_url), host, port, env))
            procs.append(started[-1])
        lines = [
            f"    server w{i} {w.host}:{w.port} check inter 300 fall 2 rise 1"
            for i, w in enumerate(started)
        ]
        port = free_port()
        config = ROOT / "tests" / ".tools" / f"haproxy-{port}.cfg"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(HAPROXY_CONFIG.format(port=port, servers="\n".join(lines)))
        haproxy = start([str(haproxy_binary), "-db", "-f", str(config)], "127.0.0.1", port)
        procs.append(haproxy)
        running = Topology(redis, started, haproxy, redis_binary, redis_url or "")
        yield running
        procs = [running.haproxy, *running.workers, running.redis]
    finally:
        for proc in procs:
            proc.stop()


if __name__ == "__main__":
    print(*tools())
