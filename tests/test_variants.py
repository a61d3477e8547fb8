"""The built-in variants: each validates, each refutes what it says it refutes (by a short hand-written
scenario replayed through `verifier.runtime.replay.run_trace`), and a broken amendment file is refused with
its file and line (exit code 3).

The scenarios are kept short and deterministic so this file stays fast; the regression gate
(`taskmodel gate`) is where the variants are explored at random.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from model.amend import KINDS, Amendment, AmendmentError, load_file, validate
from model.stories import play
from model.variants import builtins, resolve
from properties.base import load_catalogue
from properties.requirements import REQUIREMENTS
from verifier.runtime.amendments import catalogue_kinds
from verifier.runtime.worlds import world_factory
from verifier.runtime.replay import run_trace

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "amendments"
CATALOGUE = list(load_catalogue().values())
BY_ID = {rid: p.name for p in CATALOGUE for rid in p.ids}
BUILTINS = builtins()


# ---- scenario helpers ------------------------------------------------------------------------------
# A scenario is a list of (action, args); an arg value may be a function of the world (for the ids the
# world minted: runs, interrupts, task ids). `concrete` resolves it on a scratch world into the literal
# moves `run_trace` replays.

def run(n):
    return lambda w: list(w.runs)[n - 1]


def task(n, form=None):
    def ref(w):
        tid = w.rules.task_id(w, w.runs[list(w.runs)[n - 1]])
        return tid.replace("~2F", "%2F") if form == "%2F" else tid
    return ref


def intr(n):
    return lambda w: list(w.interrupts)[n - 1]


def call(client, server, declare, transport="http", tool="flow"):
    return ("call_tool", dict(client=client, server=server, transport=transport, declare=declare, tool=tool))


def on(action, **args):
    return (action, args)


def tget(client, n=1, server="S1", declare=True, header_ok=True, transport="http"):
    return ("tasks_get", dict(client=client, server=server, ref=task(n), transport=transport, declare=declare,
                              header_ok=header_ok))


def tcancel(client, n=1, server="S1", declare=True, header_ok=True):
    return ("tasks_cancel", dict(client=client, server=server, ref=task(n), transport="http", declare=declare,
                                 header_ok=header_ok))


def tupdate(client, key, response, n=1, server="S1"):
    return ("tasks_update", dict(client=client, server=server, ref=task(n), transport="http", declare=True,
                                 header_ok=True, key=key, response=response))


def concrete(make_world, scenario):
    """The literal moves of a scenario, taken on a scratch world with the host's answers following
    at once (`model.stories.play`), and how many of the scenario's own steps were taken; stops where a
    step is not enabled (or cannot even be named: the variant never minted that run), as a replay would."""
    taken = list(play(make_world(), scenario, strict=False))
    return [(action, args) for action, args, _, _ in taken], sum(named for *_, named in taken)


def outcome(variant, scenario, rid):
    make = world_factory(variant)
    moves, named = concrete(make, scenario)
    return run_trace(make, moves, CATALOGUE, BY_ID[rid]), named


# Scenario building blocks.
C1_S1_TASK = [call("C1", "S1", True)]                                   # r1, run1 (acme, tasked)
C1_S2_BLOCK = [call("C1", "S2", False), on("run_start", run=run(1))]   # r1 blocking on S2, run1 running
WAITING = lambda kind: C1_S1_TASK + [on("run_start", run=run(1)),      # noqa: E731
                                     on("run_interrupt", run=run(1), kind=kind, form=True)]
MRTR_RETRY = [call("C2", "S2", False), on("run_start", run=run(1)),
              on("run_interrupt", run=run(1), kind="approval", form=True),
              on("answer", request="r1"), on("deliver", request="r1"),
              on("mrtr_retry", client="C2", answers="r1", response="accept", declare=False)]   # r2 owns run1
BOUND = [on("harness_start", client="H1", server="S1", long=False), on("answer", request="r1"),
         on("harness_receive", request="r1"), on("harness_persist", client="H1", op="op1")]
POLL = lambda r: [on("harness_poll", client="H1", op="op1"), on("harness_receive", request=r)]  # noqa: E731
LOST_HANDLE = [on("harness_start", client="H1", server="S1", long=False), on("answer", request="r1"),
               on("disconnect", request="r1")]
REISSUE_AFTER_DROP = [on("harness_start", client="H1", server="S2", long=False), on("run_start", run=run(1)),
                      on("run_effect", run=run(1)), on("disconnect", request="r1"),
                      on("harness_reissue", client="H1", op="op1"), on("run_start", run=run(2)),
                      on("run_effect", run=run(2))]
LOST_RESULT = [on("harness_start", client="H1", server="S2", long=False), on("run_start", run=run(1)),
               on("run_effect", run=run(1)), on("run_complete", run=run(1)), on("answer", request="r1"),
               on("disconnect", request="r1"), on("harness_reissue", client="H1", op="op1"),
               on("run_start", run=run(2)), on("run_effect", run=run(2))]
TASK_SURVIVES = [on("harness_start", client="H1", server="S1", long=False), on("answer", request="r1"),
                 on("harness_receive", request="r1"), on("harness_persist", client="H1", op="op1"),
                 on("disconnect", request="r1"), on("run_start", run=run(1)), on("run_complete", run=run(1)),
                 on("harness_poll", client="H1", op="op1")]

# (variant, requirement id, expected verdict, scenario). For refuted ids the scenario breaks the id on
# the variant and not on the baseline; for a witness made unreached, or a gap a strengthening closes,
# the scenario reaches it on the baseline and not on the variant.
SCENARIOS = [
    ("keep-uq4", "OWN-2", "refuted", C1_S2_BLOCK + [on("disconnect", request="r1")]),
    ("keep-uq4", "LIV-1", "refuted", C1_S2_BLOCK + [on("disconnect", request="r1")]),
    ("detach-on-disconnect", "OWN-2", "refuted", C1_S2_BLOCK + [on("disconnect", request="r1")]),
    ("detach-on-disconnect", "LIV-1", "refuted", C1_S2_BLOCK + [on("disconnect", request="r1")]),
    ("second-advertisement", "ADV-1", "refuted", [on("discover", client="C1", server="S2")]),
    ("opaque-task-handle", "ID-1", "refuted", C1_S1_TASK + [on("answer", request="r1")]),
    ("opaque-task-handle", "ISO-1", "refuted", C1_S1_TASK + [tget("C4")]),
    ("server-chooses-per-request", "CRT-1", "refuted", WAITING("clarification") + [on("answer", request="r1")]),
    ("server-chooses-per-request", "CRT-4", "refuted", WAITING("approval")),
    ("stdio-only-cancellation", "OWN-2", "refuted", C1_S2_BLOCK + [on("disconnect", request="r1")]),
    ("stdio-only-cancellation", "LIV-1", "refuted", C1_S2_BLOCK + [on("disconnect", request="r1")]),
    ("mrtr-grace-window", "OWN-2", "refuted", MRTR_RETRY + [on("disconnect", request="r2")]),
    ("mrtr-grace-window", "OWN-3", "refuted",
     MRTR_RETRY + [on("disconnect", request="r2"), on("clock_tick"), on("discover", client="C1", server="S1")]),
    ("input-required-to-tasked", "CRT-1", "refuted", WAITING("approval") + [on("answer", request="r1")]),
    ("short-task-id", "ID-1", "refuted", C1_S1_TASK + [on("answer", request="r1")]),
    ("foreign-task-403", "ISO-1", "refuted", C1_S1_TASK + [tget("C4")]),
    ("completes-after-disconnect", "OWN-2", "refuted", C1_S2_BLOCK + [on("disconnect", request="r1")]),
    ("completes-after-disconnect", "LIV-1", "refuted", C1_S2_BLOCK + [on("disconnect", request="r1")]),
    ("cancelled-after-task-disconnect", "OWN-3", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("answer", request="r1"), on("deliver", request="r1"),
                   on("disconnect", request="r1")]),
    ("cancelled-after-task-disconnect", "E2E-3", "unreached", TASK_SURVIVES),
    ("notify-cancelled-on-run-cancel", "NTF-1", "refuted", C1_S2_BLOCK + [on("rest_cancel", subject="alice", run=run(1))]),
    ("projection-missing-waiting-external", "PRJ-1", "refuted", WAITING("external-event")),
    ("projection-missing-waiting-external", "PRJ-3", "refuted",
     WAITING("external-event") + [on("external_event", interrupt=intr(1))]),
    ("update-skips-approver-check", "UPD-2", "refuted", WAITING("approval") + [tupdate("C1", intr(1), "accept")]),
    ("update-skips-approver-check", "AUTH-1", "refuted", WAITING("approval") + [tupdate("C3", intr(1), "accept")]),
    ("task-to-non-declaring", "NEG-1", "refuted", [call("C1", "S1", False), on("answer", request="r1")]),
    ("tasks-methods-without-capability", "NEG-2", "refuted", C1_S1_TASK + [tget("C1", declare=False)]),
    ("capability-error-on-plain-mount", "NEG-4", "refuted", [call("C1", "S2", False), tget("C1", server="S2")]),
    ("missing-capability-http-200", "WIRE-5", "refuted", C1_S1_TASK + [tget("C1", declare=False)]),
    ("elicit-without-capability", "PRJ-4", "refuted",
     [call("C3", "S2", False), on("run_start", run=run(1)), on("run_interrupt", run=run(1), kind="approval", form=True),
      on("answer", request="r1")]),
    ("listen-without-capability", "NEG-3", "refuted", C1_S1_TASK + [on("listen", client="C1", server="S1", declare=False)]),
    ("answer-before-durable", "CRT-3", "refuted", C1_S1_TASK + [on("answer", request="r1")]),
    ("always-task", "CRT-2", "unreached",
     C1_S1_TASK + [on("run_start", run=run(1)), on("run_complete", run=run(1)), on("answer", request="r1")]),
    ("always-task", "CRT-2", "unreached",
     C1_S1_TASK + [on("run_start", run=run(1)), on("run_complete", run=run(1)), on("clock_tick"), on("clock_tick"),
                   on("purge", run=run(1)), on("answer", request="r1")]),
    ("always-task", "NTF-2", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("rest_cancel", subject="alice", run=run(1)),
                   on("run_finish_cancel", run=run(1)), on("answer", request="r1")]),
    ("tasks-only-for-tasked-runs", "TASK-1", "refuted", [call("C1", "S1", False)]),
    ("id-as-credential", "ID-2", "refuted", C1_S1_TASK + [tget("C4")]),
    ("id-as-credential", "ISO-1", "refuted", C1_S1_TASK + [tget("C4")]),
    ("read-only-caller-cancels", "AUTH-1", "refuted", C1_S1_TASK + [tcancel("C3")]),
    ("listen-acks-foreign", "ISO-2", "refuted", C1_S1_TASK + [on("listen", client="C4", server="S1", declare=True)]),
    ("waiting-external-input-required", "PRJ-1", "refuted", WAITING("external-event")),
    ("waiting-external-input-required", "PRJ-2", "refuted", WAITING("external-event") + [tget("C1")]),
    ("waiting-external-input-required", "PRJ-2", "refuted",
     [call("C1", "S2", False), on("run_start", run=run(1)),
      on("run_interrupt", run=run(1), kind="external-event", form=True), on("answer", request="r1")]),
    ("create-result-carries-input-requests", "PRJ-2", "refuted", C1_S1_TASK + [on("answer", request="r1")]),
    ("create-result-carries-input-requests", "WIRE-2", "refuted", C1_S1_TASK + [on("answer", request="r1")]),
    ("paused-projects-cancelled", "PRJ-1", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("operator_pause", run=run(1))]),
    ("paused-projects-cancelled", "PRJ-3", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("operator_pause", run=run(1)), on("operator_resume", run=run(1))]),
    ("rest-and-update-both-resolve", "UPD-1", "refuted",
     WAITING("approval") + [tupdate("C2", intr(1), "accept"),
                            on("rest_resolve", subject="bob", interrupt=intr(1), response="accept")]),
    ("rest-and-update-both-resolve", "UPD-2", "refuted",
     WAITING("approval") + [tupdate("C2", intr(1), "accept"),
                            on("rest_resolve", subject="bob", interrupt=intr(1), response="accept")]),
    ("update-conflict-error", "UPD-3", "refuted",
     WAITING("approval") + [tupdate("C2", intr(1), "accept"), tupdate("C2", intr(1), "accept")]),
    ("decline-cancels-run", "UPD-4", "refuted", WAITING("approval") + [tupdate("C2", intr(1), "decline")]),
    ("decline-cancels-run", "OWN-3", "refuted", WAITING("approval") + [tupdate("C2", intr(1), "decline")]),
    ("replay-reprompts", "RPL-1", "refuted",
     WAITING("approval") + [on("rest_resolve", subject="bob", interrupt=intr(1), response="accept"),
                            on("fork", run=run(1))]),
    ("get-appends-read-event", "GET-1", "refuted", C1_S1_TASK + [tget("C1")]),
    ("cancel-ack-without-cancel", "CNL-1", "refuted", C1_S1_TASK + [tcancel("C1")]),
    ("cancel-terminal-appends", "CNL-1", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("run_complete", run=run(1)), tcancel("C1")]),
    ("cancel-race-completes", "CNL-2", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), tcancel("C1"), on("run_complete", run=run(1))]),
    ("cancel-race-completes", "OWN-2", "refuted",
     C1_S2_BLOCK + [on("disconnect", request="r1"), on("run_complete", run=run(1))]),
    ("cancel-race-completes", "LIV-1", "refuted",
     C1_S2_BLOCK + [on("disconnect", request="r1"), on("run_complete", run=run(1))]),
    ("ttl-below-retention", "TTL-1", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("run_complete", run=run(1)), tget("C1")]),
    ("ttl-fails-run", "TTL-2", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("clock_tick"), on("clock_tick")]),
    ("ttl-pauses-run", "TTL-2", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("clock_tick"), on("clock_tick")]),
    ("ttl-pauses-run", "TTL-1", "refuted",
     C1_S1_TASK + [on("answer", request="r1"), on("run_start", run=run(1)), on("clock_tick"), on("clock_tick"),
                   on("operator_resume", run=run(1)), on("clock_tick"), on("operator_resume", run=run(1)),
                   on("run_complete", run=run(1))]),
    ("ttl-beyond-retention", "TTL-4", "refuted",
     C1_S1_TASK + [on("answer", request="r1"), on("run_start", run=run(1)), on("run_complete", run=run(1)),
                   on("clock_tick"), on("clock_tick"), on("purge", run=run(1)), tget("C1")]),
    ("purged-task-expired-message", "TTL-3", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("run_complete", run=run(1)), on("clock_tick"),
                   on("clock_tick"), on("purge", run=run(1)), tget("C1")]),
    ("purged-task-expired-message", "ISO-1", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("run_complete", run=run(1)), on("clock_tick"),
                   on("clock_tick"), on("purge", run=run(1)), tget("C1")]),
    ("ownership-ends-at-first-event", "OWN-1", "refuted",
     [call("C1", "S2", False), on("stream_event", request="r1")]),
    ("ownership-ends-at-first-event", "OWN-2", "refuted",
     [call("C1", "S2", False), on("stream_event", request="r1"), on("disconnect", request="r1")]),
    ("disconnect-cancels-callers-runs", "OWN-4", "refuted",
     [call("C1", "S2", False), call("C1", "S2", False), on("disconnect", request="r1")]),
    ("disconnect-cancels-callers-runs", "OWN-3", "refuted",
     [call("C1", "S2", False), call("C1", "S2", False), on("disconnect", request="r1")]),
    ("blocking-cancel-without-error", "NTF-2", "refuted",
     C1_S2_BLOCK + [on("rest_cancel", subject="alice", run=run(1)), on("run_finish_cancel", run=run(1)),
                    on("answer", request="r1")]),
    ("notification-differs-from-get", "NTF-3", "refuted",
     C1_S1_TASK + [on("listen", client="C1", server="S1", declare=True), on("run_start", run=run(1))]),
    ("listen-notifies-first-change-only", "NTF-4", "refuted",
     C1_S1_TASK + [on("listen", client="C1", server="S1", declare=True), on("run_start", run=run(1)),
                   on("run_interrupt", run=run(1), kind="approval", form=True)]),
    ("status-message-leaks", "SEC-1", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("run_complete", run=run(1)), tget("C1")]),
    ("response-content-grants-approval", "SEC-2", "refuted", WAITING("approval") + [tupdate("C1", intr(1), "accept")]),
    ("response-content-grants-approval", "UPD-2", "refuted", WAITING("approval") + [tupdate("C1", intr(1), "accept")]),
    ("response-content-grants-approval", "AUTH-1", "refuted", WAITING("approval") + [tupdate("C1", intr(1), "accept")]),
    ("task-result-type-on-get", "WIRE-1", "refuted", C1_S1_TASK + [tget("C1")]),
    ("ack-carries-status", "WIRE-2", "refuted", C1_S1_TASK + [tcancel("C1")]),
    ("ack-carries-status", "CNL-1", "refuted", C1_S1_TASK + [tcancel("C1")]),
    ("tasks-list-served", "WIRE-3", "refuted", [on("unsupported", client="C1", server="S1", method="tasks/list")]),
    ("mcp-name-unchecked", "WIRE-4", "refuted", C1_S1_TASK + [tget("C1", header_ok=False)]),
    ("drop-every-request", "LIV-1", "refuted", C1_S2_BLOCK + [on("run_complete", run=run(1))]),
    ("drop-every-request", "CRT-4", "refuted", WAITING("approval")),
    ("drop-every-request", "NTF-2", "refuted",
     C1_S2_BLOCK + [on("rest_cancel", subject="alice", run=run(1)), on("run_finish_cancel", run=run(1))]),
    ("assume-tasks-everywhere", "HNS-1", "refuted", [on("harness_start", client="H1", server="S2", long=True)]),
    ("wait-before-persist", "HNS-2", "refuted", BOUND[:3]),
    ("reissue-after-restart", "HNS-3", "refuted",
     BOUND + [on("harness_crash", client="H1"), on("harness_restart", client="H1"),
              on("harness_reissue", client="H1", op="op1")]),
    ("cancel-ack-means-no-effect", "HNS-4", "refuted",
     BOUND + [on("harness_cancel", client="H1", run="L1"), on("harness_send_cancel", client="H1", op="op1"),
              on("harness_receive", request="r2")]),
    ("mirror-remote-status", "HNS-5", "refuted", BOUND + POLL("r2")),
    ("subscription-without-fallback", "LIV-2", "refuted",
     BOUND + [on("harness_listen", client="H1", op="op1"), on("harness_poll", client="H1", op="op1"),
              on("harness_receive", request="r3"),
              on("end_listen", request="r2"), on("harness_receive", request="r2"), on("run_start", run=run(1)),
              on("run_complete", run=run(1))]),
    ("task-for-every-call", "HNS-7", "refuted", [on("harness_start", client="H1", server="S1", long=False, short=True)]),
    ("poll-with-default-credentials", "HNS-6", "refuted",
     BOUND + [on("harness_crash", client="H1"), on("harness_restart", client="H1")] + POLL("r2")),
    ("ownership-until-receipt", "E2E-1", "holds", LOST_HANDLE),
    ("ownership-until-receipt", "OWN-1", "refuted", C1_S1_TASK + [on("answer", request="r1")]),
    ("ownership-until-receipt", "OWN-3", "refuted",
     C1_S1_TASK + [on("answer", request="r1"), on("deliver", request="r1"), on("disconnect", request="r1")]),
    ("idempotency-key", "E2E-2", "holds", REISSUE_AFTER_DROP),
    ("idempotency-key", "E2E-4", "holds", LOST_RESULT),
    ("cancel-stops-at-once", "OWN-G3", "holds",
     C1_S2_BLOCK + [on("disconnect", request="r1"), on("run_compensate", run=run(1))]),
    ("every-run-128-bits", "ID-G4", "holds", [on("rest_create", subject="alice", server="S1"), tget("C1")]),
    # Further consequences a variant records in `expect`.
    ("id-as-credential", "ISO-2", "refuted", C1_S1_TASK + [on("listen", client="C4", server="S1", declare=True)]),
    ("opaque-task-handle", "CRT-3", "refuted", C1_S1_TASK + [on("answer", request="r1")]),
    ("opaque-task-handle", "TASK-1", "refuted", [call("C1", "S1", True)]),
    ("opaque-task-handle", "ISO-2", "refuted", C1_S1_TASK + [on("listen", client="C1", server="S1", declare=True)]),
    ("short-task-id", "CRT-3", "refuted", C1_S1_TASK + [on("answer", request="r1")]),
    ("short-task-id", "TASK-1", "refuted", [call("C1", "S1", True)]),
    ("short-task-id", "ISO-1", "refuted", C1_S1_TASK + [tget("C1")]),
    ("short-task-id", "ISO-2", "refuted", C1_S1_TASK + [on("listen", client="C1", server="S1", declare=True)]),
    ("ownership-ends-at-first-event", "LIV-1", "refuted",
     [call("C1", "S2", False), on("stream_event", request="r1"), on("disconnect", request="r1")]),
    ("task-result-type-on-get", "WIRE-2", "refuted",
     C1_S1_TASK + [on("run_start", run=run(1)), on("run_complete", run=run(1)), tget("C1")]),
    ("task-result-type-on-get", "PRJ-2", "refuted", WAITING("approval") + [tget("C1")]),
    ("task-result-type-on-get", "ID-1", "refuted", [on("rest_create", subject="alice", server="S1"), tget("C1")]),
    ("tasks-only-for-tasked-runs", "AUTH-1", "refuted",
     [on("rest_create", subject="alice", server="S1"), on("run_start", run=run(1)),
      on("run_interrupt", run=run(1), kind="approval", form=True), tupdate("C1", intr(1), "accept")]),
    ("tasks-only-for-tasked-runs", "UPD-3", "refuted",
     [call("C1", "S1", False), tupdate("C1", "acme/i-neverissuedneverissued", "accept")]),
    ("tasks-only-for-tasked-runs", "TTL-3", "refuted", [on("rest_create", subject="alice", server="S1"), tget("C1")]),
    ("tasks-only-for-tasked-runs", "ID-G4", "holds", [on("rest_create", subject="alice", server="S1"), tget("C1")]),
    ("update-skips-approver-check", "SEC-2", "refuted", WAITING("approval") + [tupdate("C1", intr(1), "accept")]),
    ("keep-uq4", "CRT-2", "unreached",
     C1_S1_TASK + [on("run_start", run=run(1)), on("run_complete", run=run(1)), on("answer", request="r1")]),
    ("keep-uq4", "E2E-3", "unreached", TASK_SURVIVES),
    ("drop-every-request", "CRT-2", "unreached",
     C1_S1_TASK + [on("run_start", run=run(1)), on("run_complete", run=run(1)), on("answer", request="r1")]),
    ("drop-every-request", "E2E-3", "unreached", TASK_SURVIVES),
    ("drop-every-request", "E2E-1", "holds", LOST_HANDLE),
]


# Refutations a variant also shows but does not record in `expect`, because random exploration seldom
# takes the long path to them (the gate checks only what `expect` records).
ALSO = {("mrtr-grace-window", "OWN-3")}


# ---- the built-ins ---------------------------------------------------------------------------------
def test_every_row_of_the_variants_table_is_built_in(shared_dir):
    text = (Path(shared_dir) / "docs" / "requirements.md").read_text(encoding="utf-8").split("## Variants", 1)[1]
    text = text.split("\n## ", 1)[0]          # the variants' section alone, not the tables after it
    rows = [line.split("|")[1].strip() for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| variant")]
    assert len(rows) >= 50
    assert set(rows) == set(BUILTINS)


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_builtin_validates(name):
    v = BUILTINS[name]
    validate(v, catalogue_kinds())
    assert v.kind in KINDS and v.kind != "amendment"
    assert v.source and v.changes and v.expect and (v.__doc__ or "").strip()
    module = Path(sys.modules[v.__module__].__file__).stem
    assert module == name.replace("-", "_"), "one module per variant, named after it"
    for rid, want in v.expect.items():
        kind = REQUIREMENTS[rid][0]
        assert want == {"S": "refuted", "T": "refuted", "L": "refuted", "W": "unreached", "G": "holds"}[kind], (rid, want)
    assert resolve(name) is v


def test_every_requirement_id_has_a_variant():
    named = {rid for v in BUILTINS.values() for rid in v.expect}
    assert set(REQUIREMENTS) <= named, sorted(set(REQUIREMENTS) - named)


def test_every_expectation_has_a_scenario():
    covered = {(v, rid) for v, rid, _, _ in SCENARIOS}
    wanted = {(v.name, rid) for v in BUILTINS.values() for rid in v.expect}
    assert wanted == covered - ALSO, (sorted(wanted - covered), sorted(covered - wanted - ALSO))
    for v, rid, want, _ in SCENARIOS:
        assert (v, rid) in ALSO or BUILTINS[v].expect[rid] == want, (v, rid)


@pytest.mark.parametrize("variant,rid,want,scenario", SCENARIOS, ids=[f"{v}-{r}" for v, r, _, _ in SCENARIOS])
def test_variant_scenario(variant, rid, want, scenario):
    v = BUILTINS[variant]
    got, taken = outcome(v, scenario, rid)
    base, base_taken = outcome(None, scenario, rid)
    if want == "refuted":
        assert taken == len(scenario), f"the scenario stops at step {taken + 1} on {variant}"
        assert got.violation is not None, f"{variant} does not break {rid}: {got.reason}"
        assert rid in got.violation.prop.ids
        assert base.violation is None, f"the baseline breaks {rid} on the same scenario: {base.violation}"
    else:       # a witness made unreachable, or a gap a strengthening closes
        assert base_taken == len(scenario) and base.violation is not None, \
            f"the scenario does not reach {rid} on the baseline"
        assert got.violation is None, f"{variant} still reaches {rid}: {got.violation}"


# ---- authors' amendment files and their errors -------------------------------------------------------
def _taskmodel(*args, timeout=120):
    return subprocess.run([sys.executable, "-c", "import sys; from verifier.cli import main; sys.exit(main())", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)


BROKEN = {
    "syntax": ("class Broken(Amendment)\n    name = 'x'\n", r"broken\.py:\d+: syntax error"),
    "unknown-rule": ("class Broken(Amendment):\n    name = 'x'\n\n    def on_disconect(self, world, q, cause):\n"
                     "        return None\n", r"broken\.py:\d+: 'on_disconect' is not a rule"),
    "signature": ("class Broken(Amendment):\n    name = 'x'\n\n    def on_request_cancelled(self, world, q):\n"
                  "        return None\n", r"broken\.py:\d+: rule 'on_request_cancelled' takes"),
    "parameter": ("class Broken(Amendment):\n    name = 'x'\n    params = {'retension': 3}\n",
                  r"broken\.py:\d+: 'retension' is not a model parameter"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_amendment_is_refused_with_file_and_line(case, tmp_path):
    body, pattern = BROKEN[case]
    path = tmp_path / "broken.py"
    path.write_text("from model.amend import Amendment\n\n\n" + body, encoding="utf-8")
    with pytest.raises(AmendmentError, match=pattern):
        load_file(str(path))
    r = _taskmodel("check", "--variant", str(path), "--budget", "1")
    assert r.returncode == 3, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and re.search(pattern, lines[0]), r.stderr


def test_broken_example_file_is_refused():
    r = _taskmodel("check", "--variant", str(EXAMPLES / "broken_signature.py"), "--budget", "1")
    assert r.returncode == 3
    assert re.fullmatch(r"taskmodel: broken_signature\.py:\d+: rule '\w+' takes \(.*\), not \(.*\)", r.stderr.strip())


def test_error_line_points_at_the_offending_definition(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("from model.amend import Amendment\n\n\nclass Broken(Amendment):\n    name = 'x'\n\n"
                    "    def on_request_cancelled(self, world, q):\n        return None\n", encoding="utf-8")
    with pytest.raises(AmendmentError, match=r"^broken\.py:7: "):
        load_file(str(path))


def _doc_example() -> str:
    text = (ROOT / "docs" / "amendments.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    complete = [b for b in blocks if "class " in b and "Amendment" in b and "import" in b]
    assert complete, "docs/amendments.md has no complete example amendment"
    return complete[0]


def test_doc_example_is_the_shipped_example():
    shipped = (EXAMPLES / "old_cancel_rule.py").read_text(encoding="utf-8")
    assert _doc_example().strip() == shipped.strip()


def test_doc_example_works_when_copied(tmp_path):
    """The example of docs/amendments.md, copied into a file of its own, runs as the doc says."""
    path = tmp_path / "my_amendment.py"
    path.write_text(_doc_example(), encoding="utf-8")
    cls = load_file(str(path))
    assert issubclass(cls, Amendment) and cls.expect == {"CNL-1": "refuted"}
    r = _taskmodel("check", "--variant", str(path), "--budget", "20", "--json", "--out", str(tmp_path / "out"),
                   timeout=180)
    assert r.returncode == 1, r.stderr          # a property refuted, as the amendment expects
    data = json.loads(r.stdout)
    refuted = {p["name"]: p for p in data["results"][0]["properties"] if p["verdict"] == "refuted"}
    assert "cancel-acknowledged-as-cancelrun" in refuted, sorted(refuted)
    assert refuted["cancel-acknowledged-as-cancelrun"]["ids"] == ["CNL-1"]


# ---- the falsifiability table --------------------------------------------------------------------------
def _manifest():
    props = {p.name: p for p in CATALOGUE}
    base = {name: ("known-gap" if p.kind == "gap" else "reached" if p.kind == "witness" else "holds")
            for name, p in props.items()}
    own2, crt2, g3 = BY_ID["OWN-2"], BY_ID["CRT-2"], BY_ID["OWN-G3"]
    return {"settings": {}, "variants": {
        "baseline": {"verdicts": base, "lengths": {g3: 3}},
        "detach-on-disconnect": {"verdicts": {**base, own2: "refuted"}, "lengths": {own2: 2}},
        "always-task": {"verdicts": {**base, crt2: "unreached"}, "lengths": {}},
        "cancel-stops-at-once": {"verdicts": {**base, g3: "holds"}, "lengths": {}},
        "rest-and-update-both-resolve": {"verdicts": base, "lengths": {}, "bfs": {
            "host-small": {"verdicts": {BY_ID["UPD-1"]: "holds"}, "lengths": {}},
            "host-rest": {"verdicts": {BY_ID["UPD-1"]: "refuted"}, "lengths": {BY_ID["UPD-1"]: 6}}}},
    }}


def test_falsifiability_rows_follow_the_kind_of_each_id():
    from verifier.writers.falsifiability import rows
    got = {(r["id"], r["property"]): r for r in rows(_manifest(), CATALOGUE, REQUIREMENTS)}
    assert {rid for rid, _ in got} == set(REQUIREMENTS)
    assert [v[0] for v in got[("OWN-2", BY_ID["OWN-2"])]["variants"]] == ["detach-on-disconnect"]
    assert [v[0] for v in got[("CRT-2", BY_ID["CRT-2"])]["variants"]] == ["always-task"]
    assert [v[0] for v in got[("OWN-G3", BY_ID["OWN-G3"])]["variants"]] == ["cancel-stops-at-once"]
    assert got[("OWN-G3", BY_ID["OWN-G3"])]["baseline"] == "known-gap"
    assert got[("UPD-1", BY_ID["UPD-1"])]["variants"] == [
        ("rest-and-update-both-resolve", "refuted by the exhaustive search", 6)]     # the gate's bfs record alone
    assert got[("UPD-2", BY_ID["UPD-2"])]["variants"] == []


def test_falsifiability_table_links_counterexamples():
    from verifier.writers.falsifiability import table
    text = table(_manifest(), catalogue=CATALOGUE, requirements=REQUIREMENTS)
    own2 = BY_ID["OWN-2"]
    assert f"| OWN-2 | T | `{own2}` | holds | [detach-on-disconnect](counterexamples/detach-on-disconnect/{own2}/trace.md) (2) |" in text
    assert f"| UPD-1 | S | `{BY_ID['UPD-1']}` | holds | rest-and-update-both-resolve (6, exhaustive) |" in text
    assert "| UPD-2 | S |" in text and "**none**" in text


def test_falsifiability_writes_only_between_the_markers(tmp_path):
    from verifier.writers.falsifiability import END, START, main
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(_manifest()), encoding="utf-8")
    readme = tmp_path / "README.md"
    before, after = "# Title\n\nText before.\n\n", "\n\nText after.\n"
    readme.write_text(before + START + "\nold table\n" + END + after, encoding="utf-8")
    assert main(["--manifest", str(manifest), "--readme", str(readme)]) == 0
    text = readme.read_text(encoding="utf-8")
    assert text.startswith(before + START + "\n") and text.endswith(END + after)
    assert "old table" not in text and "detach-on-disconnect" in text
    assert main(["--manifest", str(manifest), "--readme", str(readme)]) == 0     # idempotent
    assert readme.read_text(encoding="utf-8") == text
    readme.write_text("no markers\n", encoding="utf-8")
    assert main(["--manifest", str(manifest), "--readme", str(readme)]) == 3
    assert readme.read_text(encoding="utf-8") == "no markers\n"


def test_the_readme_table_is_the_committed_manifest_s():
    """The README's falsifiability table is what the writer makes of the committed manifest: a gate
    record that changed it was followed by `python -m verifier.writers.falsifiability --readme README.md`."""
    from verifier.writers.falsifiability import END, START, table
    root = Path(__file__).resolve().parent.parent
    manifest = json.loads((root / "counterexamples" / "manifest.json").read_text(encoding="utf-8"))
    readme = (root / "README.md").read_text(encoding="utf-8")
    shown = readme[readme.index(START) + len(START):readme.index(END)].strip("\n")
    assert shown == table(manifest, root="counterexamples").rstrip("\n")
