"""No wrong act with the tool's agent in separate processes on one PostgreSQL database.

The stateful property test of tests/test_no_wrong_act.py, with the same rules and invariants, where
``payer`` (the agent that acts through the tool) runs as two OS processes on one PostgreSQL store (a
fresh schema per run): one holds payer's endpoint and its tool store (``ToolStore(endpoint=...)``), the
other is a second worker of payer taking lines from the transport. The state machine drives each over a
pipe: a method call goes down with the machine's clock, its result or exception comes back. When the
tool's commit has asked the ledger ``may_act`` and before it acts, the store's process calls back up its
pipe, and the machine lets the other worker take the lines waiting for payer (a cancel among them) from
its own process, while the commit's step holds the store: the other worker does not wait for a lock
(``lock_timeout``), and a line it cannot take now stays on the transport, as the SQLite variant's does.
One more rule kills the store's process (SIGKILL, between two steps) and starts it again on the same
store: the new process must decide what the killed one decided (``decisions``, as in
tests/test_no_wrong_act_restart.py), and the machine goes on with it.

Budget: ``RW1_PROCESSES_EXAMPLES`` (default 8) runs and ``RW1_PROCESSES_STEPS`` (default 30) steps per
run. By hand, for instance::

    RW1_PURE=1 RW1_PROCESSES_EXAMPLES=300 RW1_PROCESSES_STEPS=60 \\
        python -m pytest -q -p no:cacheprovider tests/test_no_wrong_act_processes.py
"""

from __future__ import annotations

import copyreg
import multiprocessing
import os
import types
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import precondition, rule

from rogerwilco import Endpoint
from rogerwilco.front.tool import ToolStore
from tests.pg import new_schema, pg_cluster, pg_database  # noqa: F401 - fixtures
from tests.test_no_wrong_act import PROFILES, START, TOOL_AGENT, NoWrongAct, RacingEndpoint
from tests.test_no_wrong_act_restart import decisions

EXAMPLES = int(os.environ.get("RW1_PROCESSES_EXAMPLES", "8"))
STEPS = int(os.environ.get("RW1_PROCESSES_STEPS", "30"))
#: how long the other worker's step waits for the store before the line stays on the transport (the SQLite
#: variant's busy_timeout=0; PostgreSQL's 0 would mean "wait for ever")
NO_WAIT = "%20-clock_timeout%3D50"


def _mapping(d: dict) -> types.MappingProxyType:
    return types.MappingProxyType(d)


# messages keep their slots in read-only mappings: sent over the pipes as dicts, read back as mappings
copyreg.pickle(types.MappingProxyType, lambda m: (_mapping, (dict(m),)))


def _shipped(exc: BaseException) -> tuple:
    """An exception as it crosses a pipe (the package's errors take keyword arguments pickle does not pass)."""
    return type(exc), exc.args, dict(vars(exc))


def _raised(shipped: tuple) -> BaseException:
    kind, args, state = shipped
    exc = kind.__new__(kind)
    BaseException.__init__(exc, *args)
    vars(exc).update(state)
    return exc


def _serve(conn: Any, url: str, with_store: bool) -> None:
    """A process of payer: its endpoint (and with ``with_store`` its tool store), called over ``conn``."""
    now = [START]
    end = Endpoint(TOOL_AGENT, profiles=PROFILES, clock=lambda: now[0], ledger=url)
    objects: dict[str, Any] = {"end": end}
    if with_store:
        racing = RacingEndpoint(end)
        objects["store"] = ToolStore.open(url, profiles=PROFILES, endpoint=racing)

        def call_back_up() -> None:  # the machine's hook runs in its process, while this step waits
            conn.send(("hook",))
            assert conn.recv() == ("resume",)

        objects["racing"] = racing
    conn.send(("ready",))
    while True:
        request = conn.recv()
        if request is None:
            return
        now[0], name, method, args, kwargs = request
        if name == "store":
            objects["racing"].hook = call_back_up if kwargs.pop("race", False) else None
        try:
            value = getattr(objects[name], method)
            conn.send(("ok", value(*args, **kwargs) if callable(value) else value))
        except Exception as exc:  # noqa: BLE001 - every error goes back to the caller, as it would be raised
            conn.send(("raise", _shipped(exc)))


class Remote:
    """An object in another process: its methods and attributes, reached over a pipe."""

    def __init__(self, machine: "NoWrongActProcesses", conn: Any, name: str) -> None:
        self._machine, self._conn, self._name = machine, conn, name

    def _call(self, method: str, args: tuple = (), kwargs: dict | None = None) -> Any:
        self._conn.send((self._machine.now, self._name, method, args, kwargs or {}))
        while True:
            answer = self._conn.recv()
            if answer[0] == "hook":
                self._machine.run_hook()
                self._conn.send(("resume",))
            elif answer[0] == "ok":
                return answer[1]
            else:
                raise _raised(answer[1])

    def __getattr__(self, name: str) -> Any:
        if name in ("me",):
            return TOOL_AGENT
        if name in ("findings",):
            return self._call(name)
        return lambda *args, **kwargs: self._call(name, args, kwargs)


class RacingHook:
    """The machine's side of the tool's race: ``hook`` set by the rule, run when the store's process calls up."""

    hook = None


class NoWrongActProcesses(NoWrongAct):
    """NoWrongAct, with payer's endpoint, tool store and second worker in processes of their own."""

    database = ""  # the session's database (set by the fixture below); each run has a schema of its own

    def open_payer(self) -> None:
        self.procs = []
        self.url = new_schema(self.database)
        store, other = self.start_process(self.url, True), self.start_process(self.url + NO_WAIT, False)
        self.ends[TOOL_AGENT] = Remote(self, store, "end")
        self.other = Remote(self, other, "end")
        self.store = RemoteStore(self, store)
        self.racing = RacingHook()

    def start_process(self, url: str, with_store: bool) -> Any:
        """A process of payer on ``url``; the machine's end of its pipe."""
        ours, theirs = multiprocessing.get_context("fork").Pipe()
        proc = multiprocessing.get_context("fork").Process(target=_serve, args=(theirs, url, with_store), daemon=True)
        proc.start()
        theirs.close()
        self.procs.append((proc, ours))
        assert ours.recv() == ("ready",)  # one opens the store at a time: the other never waits for a lock
        return ours

    @precondition(lambda self: len(self.log) >= 2)  # (a restart before anything is let out tests little)
    @rule()
    def kill_the_store_process(self):
        before = decisions(self.ends[TOOL_AGENT])
        proc, conn = self.procs.pop(0)
        proc.kill()
        proc.join()
        conn.close()
        store = self.start_process(self.url, True)
        self.procs.insert(0, self.procs.pop())
        self.ends[TOOL_AGENT] = Remote(self, store, "end")
        self.store = RemoteStore(self, store)
        after = decisions(self.ends[TOOL_AGENT])
        for what, decided in before.items():
            assert after[what] == decided, f"payer started again decides {what} otherwise: {decided} became {after[what]}"

    def run_hook(self) -> None:
        hook = self.racing.hook
        if hook is not None:
            hook()

    def teardown(self) -> None:
        try:
            super().teardown()
        finally:
            for proc, conn in getattr(self, "procs", []):
                conn.send(None)
                proc.join()
                conn.close()


class RemoteStore(Remote):
    """The tool store in payer's process: a commit carries whether the machine set a race for it."""

    def __init__(self, machine: NoWrongActProcesses, conn: Any) -> None:
        super().__init__(machine, conn, "store")

    def commit(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("commit", args, {**kwargs, "race": self._machine.racing.hook is not None})

    def prepare(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("prepare", args, kwargs)


NoWrongActProcesses.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None,
                                                 suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.filter_too_much])


@pytest.fixture(autouse=True)
def _database(pg_database: str) -> None:
    NoWrongActProcesses.database = pg_database


TestNoWrongActProcesses = NoWrongActProcesses.TestCase
