"""The harness: waiting by subscription, it falls back to polling only when the host tears the stream
down (notifications/cancelled from the server), and takes a dropped connection for a blip.

The stream is gone either way: the remote task finishes and the tool execution never learns it. The
old model never waited by subscription on the baseline (`Params.harness_wait` "poll"), so LIV-2 held;
now the harness chooses its wait, and LIV-2 is refuted once the listen's connection drops.
"""
from model.amend import Amendment
from model.harness import HarnessRules


class _TeardownOnly(HarnessRules):
    def falls_back_to_polling(self, world, client, te):
        return world.requests[te.listen].host_cancelled


class TeardownOnlyFallback(Amendment):
    name = "quality-harness-teardown-only-fallback"
    kind = "client-mutant"
    changes = "a listen stream whose connection drops is waited on as if it would resume"
    expect = {"LIV-2": "refuted"}
    harness_rules = _TeardownOnly
