"""Bounded model checking over the encoding, with every counterexample replayed in the executable model.

For each property the search asks, at depth 1, 2, ... K, whether some path of exactly that many steps
from the initial state violates it at its last step; the first satisfiable depth gives a shortest
counterexample (shorter paths were all checked first). The Z3 model is decoded to `(action, args)`
steps, replayed in `World(params, rules)` with every move checked enabled and every abstracted state
compared with the solver's, and the catalogue's checks run after each step, as
`verifier.engines.random.machine.check_step` does. Only a trace that replays and fails the catalogue's property of the
same requirement id is reported `refuted`; anything else is a `tool-error` naming the diverging step.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import z3


from verifier.engines.z3.concrete import AbstractionError, abstract, decode_args, diff
from verifier.engines.z3.encoding import Args, Encoding, sym_case, sym_int, value_of
from verifier.engines.z3.properties import PROPS
from verifier.runtime.budgets import TIME_CAP


@dataclass
class Z3Verdict:
    """One requirement id's verdict from the Z3 engine (plain data, for the CLI's table and JSON)."""
    ids: tuple[str, ...]
    verdict: str                     # proved | proved-bounded | refuted | undetermined | tool-error
    depth: int | None = None         # refuted: the counterexample's length; else the BMC depth searched
    k: int | None = None             # proved: the k of the k-induction
    seconds: float = 0.0
    steps: list = field(default_factory=list)    # refuted / tool-error: [(action, args), ...]
    message: str = ""
    variant: str = "baseline"
    catalogue_property: str | None = None   # refuted: the catalogue property that failed on the replay
    engine: str = "z3"

    @property
    def holds(self) -> bool:
        """Only a proof counts as holding; bounded and undetermined never do for all depths."""
        return self.verdict == "proved"

    def as_dict(self) -> dict:
        return {"ids": list(self.ids), "verdict": self.verdict, "depth": self.depth, "k": self.k,
                "seconds": round(self.seconds, 3), "steps": [[a, dict(b)] for a, b in self.steps],
                "message": self.message, "variant": self.variant, "catalogue_property": self.catalogue_property, "engine": self.engine}


# The resource units (Z3's `rlimit`) each query may use: the work budget that makes a query's
# answer the same on any machine. `query_rlimit` sets it for a check (a forked process inherits it);
# the wall-clock deadline stays over it as an outer cap.
_RLIMIT: list[int | None] = [None]


@contextmanager
def query_rlimit(rlimit: int | None):
    was, _RLIMIT[0] = _RLIMIT[0], rlimit
    try:
        yield
    finally:
        _RLIMIT[0] = was


MAX_MS = 2 ** 32 - 1     # TryFor's bound is an unsigned int of milliseconds: no cap (inf) is at most this


def make_solver(seconds: float):
    """A fresh bit-blasting solver bounded by `seconds` (inf: no cap) and the check's rlimit (the searches are not
    incremental: the SAT-based QF_BV tactic is far faster here than the incremental SMT core)."""
    ms = max(1, int(min(seconds * 1000, MAX_MS)))
    solver = z3.TryFor(z3.Tactic("qfbv"), ms).solver()
    if _RLIMIT[0]:
        solver.set("rlimit", _RLIMIT[0])
    return solver


def unknown_reason(solver, deadline: float) -> str:
    """Why a query answered unknown: the outer cap, or its work budget (or Z3's own reason)."""
    reason = solver.reason_unknown()
    if reason == "interrupted from keyboard":   # Z3 took the command's Ctrl-C while it solved
        raise KeyboardInterrupt
    if time.time() >= deadline - 0.01:
        return TIME_CAP
    return f"rlimit {_RLIMIT[0]:,} exhausted" if _RLIMIT[0] and reason in ("max. resource limit exceeded",
                                                                             "canceled") else reason


class Unrolling:
    """The initial state and `depth` transitions of the encoding, as formulas."""

    def __init__(self, enc: Encoding, tag: str = "", initial: dict | None = None):
        self.enc = enc
        self.tag = tag
        self.states = [enc.initial() if initial is None else initial]
        self.acts: list = []
        self.args: list[Args] = []
        self.cases: list = []
        self.trans: list = []

    @property
    def depth(self) -> int:
        return len(self.acts)

    def extend(self) -> None:
        i = self.depth + 1
        s2 = self.enc.symbolic_state(f"{self.tag}{i}")
        act = sym_int(f"act@{self.tag}{i}")
        case = sym_case(f"case@{self.tag}{i}")
        A = Args.symbolic(f"{self.tag}{i}")
        self.trans.append(self.enc.transition(self.states[-1], act, A, s2, case))
        self.states.append(s2)
        self.acts.append(act)
        self.args.append(A)
        self.cases.append(case)

    def holds_at(self, zp, i: int):
        """The property's formula on step i (1-based: from state i-1 to state i)."""
        return zp.formula(self.enc, self.states[i - 1], self.acts[i - 1], self.args[i - 1], self.states[i])

    def decode(self, model) -> tuple[list[tuple[str, dict]], list[dict]]:
        """(action name, encoding argument values) per step and the encoded state after each step."""
        steps, states = [], []
        for i in range(self.depth):
            a = value_of(model.eval(self.acts[i], model_completion=True))
            vals = {}
            for f in Args.__dataclass_fields__:
                vals[f] = value_of(model.eval(getattr(self.args[i], f), model_completion=True))
            steps.append((self.enc.actions[a], vals))
            st = {}
            for key, var in self.states[i + 1].items():
                st[key] = value_of(model.eval(var, model_completion=True)) if isinstance(var, z3.ExprRef) else var
            states.append(st)
        return steps, states


@dataclass
class Replay:
    ok: bool
    steps: list                      # [(action, args)] replayed (decoded in the concrete world)
    world: object = None
    violations: dict = field(default_factory=dict)   # requirement id -> (step index, property name, message)
    problem: str = ""
    diverged_at: int | None = None


def catalogue_props():
    from properties.base import load_catalogue
    return [p for p in load_catalogue().values() if p.kind != "liveness"]


def replay(enc: Encoding, decoded: list, zstates: list | None = None, props=None) -> Replay:
    """Replay decoded Z3 steps in `enc.world()` and run the catalogue after each step."""
    props = catalogue_props() if props is None else props
    world = enc.world()
    done: list = []
    found: dict = {}
    for i, (name, vals) in enumerate(decoded):
        try:
            args = decode_args(world, name, vals)
        except AbstractionError as e:
            return Replay(False, done, world, found, f"step {i + 1} {name}: {e}", i + 1)
        if args not in world.moves(name):
            return Replay(False, done, world, found, f"step {i + 1} {name}({args}) is not enabled in the model", i + 1)
        try:
            step = world.apply(name, args, check=False)
        except Exception as e:  # the model refused the step: a divergence, reported with the step
            return Replay(False, done, world, found, f"step {i + 1} {name}({args}) raised {type(e).__name__}: {e}", i + 1)
        done.append((name, args))
        if zstates is not None:
            d = diff(abstract(world, enc), zstates[i])
            if d:
                shown = "; ".join(f"{k}: model {a!r}, Z3 {b!r}" for k, a, b in d[:6])
                return Replay(False, done, world, found, f"after step {i + 1} {name}({args}) the model's state "
                              f"differs from Z3's: {shown}", i + 1)
        for p in props:
            try:
                msg = p.check(world, step)
            except Exception as e:  # a check that crashes on a replayed trace is itself a finding
                msg = f"the check raised {type(e).__name__}: {e}"
            if msg and p.asserted:
                for rid in p.ids:
                    found.setdefault(rid, (i + 1, p.name, msg))
    return Replay(True, done, world, found)


def bmc(enc: Encoding, ids: list[str], depth: int, deadline: float, variant: str = "baseline",
        props=None, on_depth=None) -> dict[str, Z3Verdict]:
    """Search each id's shortest counterexample up to `depth` steps, within the wall-clock `deadline`.

    At each depth one query asks for a violation of any id still open; a model names the ids it
    violates (each refuted at this depth, the shortest, since shallower queries were unsatisfiable)
    and the query is repeated without them."""
    start = time.time()
    out: dict[str, Z3Verdict] = {}
    open_ids = [r for r in ids if r in PROPS]
    path = Unrolling(enc, tag="b")
    props = catalogue_props() if props is None else props
    searched = 0
    for d in range(1, depth + 1):
        if not open_ids or time.time() >= deadline:
            break
        path.extend()
        formulas = {rid: _z(path.holds_at(PROPS[rid], d)) for rid in open_ids}
        while open_ids:
            left = deadline - time.time()
            if left <= 0:
                break
            solver = make_solver(left)
            solver.add(*path.trans)
            solver.add(z3.Or([z3.Not(formulas[rid]) for rid in open_ids]))
            res = solver.check()
            if res == z3.unsat:
                searched = d
                break
            if res == z3.unknown:
                reason = unknown_reason(solver, deadline)
                for rid in open_ids:
                    out[rid] = Z3Verdict((rid,), "undetermined", searched, None, time.time() - start, variant=variant,
                                         message=f"the solver answered unknown at depth {d} ({reason}); no "
                                                 f"counterexample of at most {searched} steps")
                open_ids = []
                break
            model = solver.model()
            hit = [rid for rid in open_ids if z3.is_false(model.eval(formulas[rid], model_completion=True))]
            decoded, zstates = path.decode(model)
            for rid in hit or open_ids[:1]:
                out[rid] = _judge(enc, rid, d, decoded, zstates, time.time() - start, variant, props)
                open_ids.remove(rid)
        if on_depth is not None:
            on_depth(d, time.time() - start)
    for rid in open_ids:
        done = searched >= depth
        out[rid] = Z3Verdict((rid,), "proved-bounded" if done else "undetermined", searched, None,
                             time.time() - start, variant=variant,
                             message=(f"no counterexample of at most {searched} steps" if done else
                                      f"{TIME_CAP}: no counterexample of at most {searched} steps (bound {depth})"))
    return out


def _z(x):
    return x if isinstance(x, z3.ExprRef) else z3.BoolVal(bool(x))


def _judge(enc, rid, d, decoded, zstates, seconds, variant, props) -> Z3Verdict:
    rep = replay(enc, decoded, zstates, props)
    steps = rep.steps
    if not rep.ok:
        return Z3Verdict((rid,), "tool-error", d, None, seconds, steps=steps or [(a, v) for a, v in decoded],
                         variant=variant, message=f"the Z3 counterexample for {rid} does not replay: {rep.problem}")
    if rid not in rep.violations:
        others = ", ".join(f"{r} at step {v[0]}" for r, v in sorted(rep.violations.items())) or "none"
        return Z3Verdict((rid,), "tool-error", d, None, seconds, steps=steps, variant=variant,
                         message=f"the Z3 counterexample for {rid} replays, but the catalogue's {rid} property does "
                                 f"not fail on it (the catalogue found: {others})")
    at, name, msg = rep.violations[rid]
    return Z3Verdict((rid,), "refuted", d, None, seconds, steps=steps, variant=variant, catalogue_property=name,
                     message=f"step {at}: {msg}")
