"""rogerwilco ledger status and migrate: who owns what per agent; a store copied between engines, verified."""

from __future__ import annotations

import json
import subprocess
import sys

from rogerwilco import Endpoint
from rogerwilco.front.tool import ToolRefused, ToolStore
from tests.bounds import HANG
from tests.pg import engine, locate, new_schema, pg_cluster, pg_database  # noqa: F401 - fixtures
from tests.test_ledger import PAY_HO, journal_of

DYING = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"  # the act may have run: in doubt


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rogerwilco", "ledger", *args], capture_output=True, text=True,
                          timeout=HANG)


def fleet(location) -> str:
    """payer with a statement in doubt, dev owning an item, lead with an open handoff; the doubtful token."""
    payer = Endpoint("payer", profiles=["pay"], ledger=location)
    store = ToolStore.open(location, profiles=["pay"], endpoint=payer)
    payer.receive(PAY_HO)
    prepared = store.prepare(PAY_HO)
    payer.send(prepared.rb)
    payer.receive("RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val=Y")
    try:
        store.commit(prepared.token, [sys.executable, "-c", DYING])
    except ToolRefused:
        pass
    dev = Endpoint("dev", ledger=location)
    dev.receive("RW1 HO lead-1 from=lead to=dev item=gh:org/app#7 ask=FIX due=20261010")
    dev.send(dev.readback("lead-1"), number=True)
    Endpoint("lead", ledger=location).send("RW1 HO lead-0 from=lead to=qa item=gh:org/app#8 ask=TEST", number=True)
    return prepared.token


def test_status_says_per_agent_what_it_owns_what_is_open_and_what_is_in_doubt(locate):
    location = locate("fleet.ledger")
    token = fleet(location)
    done = cli("status", "--ledger", str(location), "--format", "json")
    assert done.returncode == 0, done.stderr
    agents = {a["agent"]: a for a in json.loads(done.stdout)["agents"]}
    assert set(agents) == {"payer", "dev", "lead"}
    assert agents["dev"]["owns"] == ["gh:org/app#7"] and agents["dev"]["last_number"] == 1
    assert [h["id"] for h in agents["lead"]["open_handoffs"]] == ["lead-1"]
    assert [s["token"] for s in agents["payer"]["in_doubt"]] == [token] and agents["payer"]["last_number"] == 2
    text = cli("status", "--ledger", str(location))
    assert text.returncode == 0 and f"IN DOUBT  statement {token}" in text.stdout


def test_migrate_to_postgresql_and_back_keeps_every_row_and_the_agents_resume(tmp_path, pg_database):
    source = tmp_path / "fleet.ledger"
    fleet(source)
    url = new_schema(pg_database)
    there = cli("migrate", "--from", str(source), "--to", url, "--format", "json")
    assert there.returncode == 0, there.stderr
    tables = json.loads(there.stdout)["tables"]
    assert tables["journal"]["rows"] == len(journal_of(source)) and tables["statements"]["rows"] == 1
    assert journal_of(url) == journal_of(source)
    back = tmp_path / "back.ledger"
    again = cli("migrate", "--from", url, "--to", str(back), "--format", "json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["tables"] == tables  # the same counts and digests, three stores
    # the agents go on where they stopped, on the server: the journal's numbering and the counter continue
    dev = Endpoint("dev", ledger=url)
    assert dev.owner("gh:org/app#7") == "dev"
    assert dev.send("RW1 ST dev-0 from=dev to=lead item=gh:org/app#7 pct=50", number=True).startswith("RW1 ST dev-2 ")
    assert journal_of(url)[:-1] == journal_of(back)


def test_migrate_never_writes_over_a_store_and_status_never_makes_one(tmp_path, pg_database):
    source = tmp_path / "fleet.ledger"
    Endpoint("dev", ledger=source).receive("RW1 HO lead-1 from=lead to=dev item=x ask=FIX")
    url = new_schema(pg_database)
    assert cli("migrate", "--from", str(source), "--to", url).returncode == 0
    twice = cli("migrate", "--from", str(source), "--to", url)
    assert twice.returncode == 2 and "already holds a store" in twice.stderr
    over = cli("migrate", "--from", url, "--to", str(source))
    assert over.returncode == 2 and "never over one" in over.stderr
    empty = new_schema(pg_database)
    nothing = cli("status", "--ledger", empty)
    assert nothing.returncode == 2 and "holds no rogerwilco ledger" in nothing.stderr
    missing = cli("status", "--ledger", str(tmp_path / "nope.ledger"))
    assert missing.returncode == 2 and "no ledger at" in missing.stderr and not (tmp_path / "nope.ledger").exists()
