"""No wrong act across restarts: the stateful machine of ``test_no_wrong_act``, where any agent's process
may stop between two steps and start again from its ledger.

A restarted endpoint is built from the journal alone. What it decides must be what the endpoint that wrote the
journal decided: for every HO it holds, the same handoff (issues, readback, close) and the same answer to
``may_act``; the same holder and owner of every item; the same findings and the same questions pending. The
machine then goes on with the restarted endpoint (for the tool's agent, with a tool store opened again on the
same ledger), so every invariant of the machine also holds of what a restarted endpoint lets out.

Budget: ``RW1_RESTART_EXAMPLES`` (default 50) runs and ``RW1_STATEFUL_STEPS`` (default 40) steps per run.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import precondition, rule

from rogerwilco import Endpoint
from rogerwilco.front.tool import ToolStore
from tests.test_no_wrong_act import AGENTS, ITEMS, PROFILES, STEPS, TOOL_AGENT, NoWrongAct, RacingEndpoint

EXAMPLES = int(os.environ.get("RW1_RESTART_EXAMPLES", "50"))


def decisions(end: Endpoint) -> dict:
    """Everything an endpoint decides that a restart must keep."""
    end.refresh()
    hos = [line.split(" ")[2] for _, line in end.journal() if line.split(" ")[1] == "HO"]
    return {
        "handoffs": {ho: end.handoff(ho) for ho in hos},
        "may_act": {ho: end.may_act(ho) for ho in hos},
        "owner": {item: end.owner(item) for item in ITEMS},
        "holder": {item: end._holder(item) for item in ITEMS},
        "findings": sorted((f.kind, f.key or "", f.token or "", f.severity) for f in end.findings),
        "questions": sorted(m.id for m in end.pending_questions()),
    }


class NoWrongActAcrossRestarts(NoWrongAct):

    @precondition(lambda self: len(self.log) >= 2)  # (a restart before anything is let out tests little)
    @rule(agent=st.sampled_from(AGENTS))
    def restart(self, agent):
        old = self.ends[agent]
        before = decisions(old)
        new = Endpoint(agent, profiles=PROFILES, clock=self.clock, ledger=old.ledger)
        after = decisions(new)
        journal = "\n".join(f"{direction} {line}" for direction, line in old.journal())
        for what, decided in before.items():
            assert after[what] == decided, f"{agent} restarted decides {what} otherwise: {decided} became " \
                                           f"{after[what]}\n{journal}"
        self.ends[agent] = new
        if agent == TOOL_AGENT:
            self.racing = RacingEndpoint(new)
            self.store = ToolStore.open(os.path.join(self.dir, f"{TOOL_AGENT}.ledger"), profiles=PROFILES,
                                        endpoint=self.racing)


NoWrongActAcrossRestarts.TestCase.settings = settings(
    max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None,
    suppress_health_check=list(HealthCheck))
TestNoWrongActAcrossRestarts = NoWrongActAcrossRestarts.TestCase
