"""Runs, parallel nodes: a host whose answer to one open interrupt resolves every open interrupt of
the run.

A run with parallel nodes waits on several interrupts at once; answering one key leaves the others
outstanding (partial fulfilment, the official check TasksMRTRPartialFulfillment). This host resolves
them all. While the model's runs never waited on two interrupts at once, it passed; now a waiting
run may open another, and UPD-2 sees an interrupt resolved by no answer naming it.
"""
from model.amend import Amendment


class OneAnswerResolvesAll(Amendment):
    name = "quality-one-answer-resolves-all"
    kind = "mutant"
    changes = "resolving one interrupt resolves every open interrupt of its run"
    expect = {"UPD-2": "refuted"}

    def do_resolve(self, world, interrupt, subject, action, via):
        super().do_resolve(world, interrupt, subject, action, via)
        for other in world.runs[interrupt.run].open_interrupts(world):
            super().do_resolve(world, other, subject, action, via)
