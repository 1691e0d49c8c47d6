"""A PostgreSQL cluster for the tests: initialised in a temporary folder, on a free local port, stopped at the end.

The server's programs are found on PATH or under ``/usr/lib/postgresql/*/bin`` (Debian's layout). A
machine without them fails the tests that need one, naming the install line: the suite never skips.
Run as root, the cluster belongs to the ``postgres`` user (the server refuses to run as root).
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

INSTALL = "install PostgreSQL's server: apt-get install -y postgresql (Debian, Ubuntu), then run the tests again"


class ServerMissing(RuntimeError):
    """No PostgreSQL server programs on this machine."""


def server_bin() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl``."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "initdb").is_file():
            return Path(folder)
    raise ServerMissing(f"no PostgreSQL server (initdb) on PATH or under /usr/lib/postgresql/*/bin: {INSTALL}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """One server, with a superuser ``rw`` whose password is in :attr:`password`."""

    def __init__(self, bin_dir: Path | None = None, *, fsync: bool = False, netns: str | None = None,
                 listen: str = "127.0.0.1", clients: str | None = None) -> None:
        """``fsync=False`` (the tests'): a crash of the machine may lose the cluster, a killed process never;
        a benchmark beside SQLite FULL wants ``True``. ``netns``: the network namespace the server runs in,
        listening on ``listen``; ``clients``: a network (CIDR) whose hosts may log in with the password."""
        self.bin = bin_dir or server_bin()
        self.folder = Path(tempfile.mkdtemp(prefix="rw-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.password = secrets.token_hex(12)
        self.user = "rw"
        self._owner = pwd.getpwnam("postgres") if os.geteuid() == 0 else None
        self.running = False
        self.fsync = fsync
        self.netns, self.listen, self.clients = netns, listen, clients
        self.host = listen if listen != "*" else "127.0.0.1"  # where the URLs point (a test may change it)

    def _run(self, *argv: str) -> subprocess.CompletedProcess:
        command = [str(self.bin / argv[0]), *argv[1:]]
        if self._owner is not None:
            command = ["runuser", "-u", self._owner.pw_name, "--", *command]
        if self.netns is not None and argv[0] == "pg_ctl":
            command = ["ip", "netns", "exec", self.netns, *command]
        return subprocess.run(command, capture_output=True, text=True, check=True, cwd=self.folder)

    def start(self) -> "Cluster":
        pwfile = self.folder / "pw"
        pwfile.write_text(self.password + "\n")
        if self._owner is not None:
            os.chown(self.folder, self._owner.pw_uid, self._owner.pw_gid)
            os.chown(pwfile, self._owner.pw_uid, self._owner.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", self.user, "--pwfile", str(pwfile), "--auth=scram-sha-256",
                  "-E", "UTF8", "--no-instructions")
        if self.clients is not None:
            with open(self.data / "pg_hba.conf", "a") as hba:
                hba.write(f"host all all {self.clients} scram-sha-256\n")
        options = f"-p {self.port} -k {self.folder} -c listen_addresses={self.listen} -c max_connections=200 -c fsync={'on' if self.fsync else 'off'}"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start")
        self.running = True
        return self

    def url(self, dbname: str = "postgres", *, password: str | None = None, user: str | None = None) -> str:
        return (f"postgresql://{user or self.user}:{password or self.password}@{self.host}:{self.port}/{dbname}"
                "?connect_timeout=10")

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = name or "t" + secrets.token_hex(6)
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.running:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
            self.running = False
        shutil.rmtree(self.folder, ignore_errors=True)


#: the store's engines every ledger, endpoint and tool test runs on
ENGINES = ("sqlite", "postgresql")

#: test files whose every test runs on a server of their own or the session's
SERVER_ONLY = {"test_ledger_pg.py", "test_ledger_hosts.py", "test_no_wrong_act_processes.py"}


def uses_postgresql(item: Any) -> bool:
    """Whether a collected test runs on PostgreSQL (for the run's report of what the server costs)."""
    return ("[postgresql" in item.nodeid or "-postgresql" in item.nodeid or item.path.name in SERVER_ONLY
            or bool({"pg_cluster", "pg_database"} & set(getattr(item, "fixturenames", ()))))


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """One server for the session; its absence is an error naming the install line, never a skip."""
    cluster = Cluster().start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def pg_database(pg_cluster: Cluster) -> str:
    return pg_cluster.create_database("rogerwilco_tests")


def new_schema(database_url: str) -> str:
    """The URL of a fresh, empty schema in the database (a store of its own)."""
    import psycopg

    name = "s" + secrets.token_hex(6)
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    return f"{database_url}&options=-csearch_path%3D{name}"


@pytest.fixture(params=ENGINES)
def engine(request: Any) -> str:
    return str(request.param)


@pytest.fixture
def locate(engine: str, tmp_path: Path, request: Any) -> Callable[[str], Any]:
    """name -> where a store of that name lives on the test's engine: a file in tmp_path, or a fresh schema
    of the session's database (the same name gives the same place within a test)."""
    places: dict[str, Any] = {}

    def at(name: str) -> Any:
        if name not in places:
            places[name] = tmp_path / name if engine == "sqlite" else new_schema(
                request.getfixturevalue("pg_database"))
        return places[name]

    return at


def rows(location: Any, sql: str, params: tuple = ()) -> list[tuple]:
    """A query's rows, read through the store's own engine (SQLite-worded, as the store's code is)."""
    from rogerwilco.checks.ledger import open_ledger

    ledger = open_ledger(location if not isinstance(location, Path) else str(location))
    try:
        with ledger.transaction() as tx:
            return [tuple(row) for row in tx.db.execute(sql, params).fetchall()]
    finally:
        ledger.close()


if __name__ == "__main__":  # a cluster by hand: python -m tests.pg (stopped with Enter)
    cluster = Cluster().start()
    print(cluster.url())
    try:
        input("running; Enter stops it\n")
    finally:
        cluster.stop()
