"""Work budgets: what bounds each engine, so that a verdict is a fact about the model, the scope and
the budget, never about how busy the machine was.

The random engine counts examples (explored in seeded chunks), bfs counts distinct states per scope
(none by default: every search completes), Z3 counts solver resource units per query (`rlimit`).
They alone bound a command: on a loaded machine the answer is the idle one, later. A wall-clock cap
(`--budget`, Z3's `--timeout`) is opt-in, an outer bound only: work it cuts short, a step blocked
across it included (`watchdog`), is reported `undetermined (time cap)`, with how far it got, never
as another verdict.

The random engine's default, 6,000 examples of 40 steps, is about 80 CPU seconds on the baseline
(`taskmodel check`, measured: 240 chunks of 25 examples Hypothesis counts, and about as many it ends
after a step or two, uncounted, `cut`).
"""
from __future__ import annotations

import math

DEFAULT_EXAMPLES = 6_000           # the random engine's examples per check
AUTHOR_EXAMPLES = 250              # its pass after an amendment file's exhaustive search (an author's check:
                                   # bfs has searched every default scope and home already)
EXAMPLES_PER_CHUNK = 25            # one seeded Hypothesis run; a chunk is the unit the cap may cut
DEFAULT_RLIMIT = 100_000_000       # Z3 resource units per query (the baseline's costliest: 21 M, 2.8 CPU s)
NO_CAP = math.inf                  # an engine's wall-clock cap when none is asked for
TIME_CAP = "time cap"              # the words every engine reports work cut short by the cap with


def chunks_for(examples: int) -> int:
    """The seeded chunks that explore at least `examples` examples."""
    return max(1, math.ceil(examples / EXAMPLES_PER_CHUNK))
