"""Hosts on one machine: network namespaces joined by veth pairs, a PostgreSQL server in one of them.

:func:`network` makes a namespace for the server and one per host, each host joined to the server's
namespace by a veth pair of its own (``NET.K.0/30``: the server at ``.1``, the host at ``.2``), and the
caller's namespace by one more (``NET.0.0/30``); it starts the cluster (tests/pg.py) there and removes it
all at the end. ``NET`` is ``10.N`` with ``N`` from the process id, so runs side by side do not meet.
Used by tests/test_ledger_hosts.py and ``benchmarks/endpoint_bench.py --hosts``; it needs root and ``ip``.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from tests.pg import Cluster

ROOT = Path(__file__).resolve().parent.parent
TAG = f"rw{os.getpid() % 100000}"
NET = f"10.{100 + os.getpid() % 100}"
#: the network's own timeouts: a link that goes down is noticed in seconds, not TCP's quarter of an hour
TIMEOUTS = "tcp_user_timeout=3000&keepalives_idle=1&keepalives_interval=1&keepalives_count=2"
_CLONE_NEWNET = 0x40000000


class NoNamespaces(RuntimeError):
    """This process cannot make network namespaces."""


def ip(*argv: str, ns: str | None = None) -> None:
    command = ["ip", *argv] if ns is None else ["ip", "netns", "exec", ns, "ip", *argv]
    subprocess.run(command, check=True, capture_output=True)


@contextmanager
def network(hosts: int, *, fsync: bool = False) -> Iterator[tuple[Cluster, str, list[str]]]:
    """The server's namespace and ``hosts`` hosts: (the cluster, a new database's URL, the hosts' names)."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        raise NoNamespaces("hosts are network namespaces: run as root with iproute2 installed")
    db, names = f"{TAG}-db", [f"{TAG}-h{k}" for k in range(1, hosts + 1)]
    made: list[str] = []
    cluster = None
    try:
        for ns in [db, *names]:
            ip("netns", "add", ns)
            made.append(ns)
            ip("link", "set", "lo", "up", ns=ns)
        for k, ns in enumerate([None, *names]):
            near, far = f"{TAG}a{k}", f"{TAG}b{k}"
            ip("link", "add", near, "type", "veth", "peer", "name", far)
            ip("link", "set", far, "netns", db)
            if ns is not None:
                ip("link", "set", near, "netns", ns)
            ip("addr", "add", f"{NET}.{k}.2/30", "dev", near, ns=ns)
            ip("link", "set", near, "up", ns=ns)
            ip("addr", "add", f"{NET}.{k}.1/30", "dev", far, ns=db)
            ip("link", "set", far, "up", ns=db)
        cluster = Cluster(netns=db, listen="*", clients=f"{NET}.0.0/16", fsync=fsync)
        cluster.host = f"{NET}.0.1"
        cluster.start()
        yield cluster, cluster.create_database("fleet"), names
    finally:
        if cluster is not None:
            cluster.stop()
        subprocess.run(["ip", "link", "del", f"{TAG}a0"], capture_output=True)
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def on(k: int, url: str) -> str:
    """The URL as host ``k`` (1, 2, ...) reaches the server (over its own link), with the network's timeouts."""
    return url.replace(f"{NET}.0.1", f"{NET}.{k}.1") + "&" + TIMEOUTS


def python_on(ns: str, script: str, *args: str, env: dict | None = None) -> subprocess.Popen:
    """``python -c script args`` on host ``ns``, importing this tree."""
    return subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c", script, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, **(env or {}),
                                                                               "PYTHONPATH": str(ROOT)})


def enter(ns: str) -> None:
    """Move this (single-threaded, freshly forked) process onto host ``ns``: its network is the host's."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/var/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(fd, _CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"cannot enter the network namespace {ns}")
    finally:
        os.close(fd)
