"""Cross-checks between the encoding and the executable model.

1. Traces accepted: seeded random walks of the executable model (over its encoded moves) are steps of
   the encoding. Each step is checked by running the encoding's own definition on the abstracted
   state (`concrete_step_ok`, which names the diverging fields), and whole traces are also asserted
   the Z3 term of the symbolic relation itself: `RelationEvaluator` has Z3 evaluate that term on each
   concrete step (fast enough for thousands of traces), and `PathChecker` asserts whole traces to a
   solver as constrained paths.
2. Guards exact: in sampled states, the argument choices the encoding's guard allows decode to
   exactly the moves the executable model lists, so a Z3 path never takes a step the model refuses.
3. Counterexamples replay: done by `bmc` itself for every counterexample it reports.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

import z3


from verifier.engines.z3.concrete import ARG_NAMES, abstract, decode_args, diff, encode_args, encoded_moves
from verifier.engines.z3.encoding import (ACTION_ARG_FIELDS, Args, Encoding, executable_actions, sym_case,
    sym_int)

# Weights of the walk: requests and the host's answers more often than the rest, so that MRTR
# retries, answered calls and tasks/* on live runs are reached within the small request budget.
WEIGHTS = {"call_tool": 3.0, "mrtr_retry": 6.0, "answer": 5.0, "deliver": 3.0, "tasks_get": 1.5, "tasks_update": 2.0,
           "tasks_cancel": 1.5, "run_start": 3.0, "run_interrupt": 3.0, "discover": 0.2, "unsupported": 0.2,
           "listen": 0.6, "stream_event": 2.0, "disconnect": 1.5, "fork": 2.0, "run_spawn": 2.0,
           # the harness: its answers read and polled more than it crashes, interrupts raised for its MRTR
           # and tasks/update paths
           "harness_start": 4.0, "harness_receive": 6.0, "harness_persist": 3.0, "harness_poll": 3.0,
           "harness_crash": 0.5, "harness_restart": 3.0, "harness_cancel": 1.0, "harness_send_cancel": 3.0,
           "harness_update": 5.0, "harness_mrtr": 5.0}


@dataclass
class Record:
    pre: dict
    action: str
    args: dict
    A: Args
    post: dict


@dataclass
class WalkResult:
    seed: int
    records: list = field(default_factory=list)
    mismatch: str | None = None


def random_walk(enc: Encoding, seed: int, length: int = 30, weighted: bool = True) -> WalkResult:
    """A seeded random walk of the world the encoding describes (`enc.world()`); every step checked against the encoding."""
    rng = random.Random(seed)
    world = enc.world()
    table = executable_actions()
    names = [a for a in enc.actions if a in table]
    out = WalkResult(seed)
    pre = abstract(world, enc)
    for n in range(length):
        enabled = [a for a in names if encoded_moves(world, a)]
        if not enabled:
            break
        weights = [WEIGHTS.get(a, 1.0) if weighted else 1.0 for a in enabled]
        a = rng.choices(enabled, weights)[0]
        moves = encoded_moves(world, a)
        args = moves[rng.randrange(len(moves))]
        A = encode_args(world, a, args)
        world.apply(a, args)
        post = abstract(world, enc)
        out.records.append(Record(pre, a, args, A, post))
        problem = concrete_step_ok(enc, pre, a, A, post)
        if problem:
            out.mismatch = f"seed {seed} step {n} {a}({args}): {problem}"
            break
        pre = post
    return out


def concrete_step_ok(enc: Encoding, pre: dict, action: str, A: Args, post: dict) -> str | None:
    """None when the encoding takes `action` with A from pre to exactly post; else what differs."""
    g, t = enc.step(pre, action, A)
    if g is not True:
        return f"the encoding's guard of {action} is {g!r} on the abstracted state"
    d = diff(t, post)
    if d:
        return "the encoding's successor differs: " + "; ".join(f"{k}: encoding {a!r}, model {b!r}" for k, a, b in d[:8])
    return None


class PathChecker:
    """A solver holding the symbolic relation over a fixed number of steps: concrete traces are
    asserted onto it (push/pop) to confirm the Z3 formula itself accepts them."""

    def __init__(self, enc: Encoding, depth: int):
        self.enc = enc
        self.depth = depth
        self.solver = z3.Solver()
        self.states = [enc.symbolic_state(f"c{i}") for i in range(depth + 1)]
        self.acts = [sym_int(f"act@c{i}") for i in range(1, depth + 1)]
        self.args = [Args.symbolic(f"c{i}") for i in range(1, depth + 1)]
        self.cases = [sym_case(f"case@c{i}") for i in range(1, depth + 1)]
        self.trans = [enc.transition(self.states[i], self.acts[i], self.args[i], self.states[i + 1], self.cases[i])
                      for i in range(depth)]
        # one Boolean per step turns its transition on, so shorter traces use a prefix
        self.on = [z3.Bool(f"on@c{i}") for i in range(depth)]
        for i in range(depth):
            self.solver.add(z3.Implies(self.on[i], self.trans[i]))

    def accepts(self, records: list[Record]) -> bool:
        n = min(len(records), self.depth)
        eqs = []
        st = self.states
        for key, v in records[0].pre.items():
            eqs.append(st[0][key] == v)
        for i in range(n):
            r = records[i]
            eqs.append(self.acts[i] == self.enc.index[r.action])
            for f in ARG_NAMES_FIELDS.get(r.action, ()):
                eqs.append(getattr(self.args[i], f) == getattr(r.A, f))
            for key, v in r.post.items():
                eqs.append(st[i + 1][key] == v)
        self.solver.push()
        self.solver.add(*eqs)
        result = self.solver.check(*self.on[:n])
        self.solver.pop()
        return result == z3.sat


class RelationEvaluator:
    """The one-step Z3 term T(s, act, A, s2, case) that BMC and k-induction unroll, evaluated by Z3
    on concrete steps: a model fixes every variable to the step's values and Z3 evaluates the term
    (no search), so the term itself, not only the Python definition behind it, accepts each step.
    The model is filled through the C API: the Python wrapper's checks would cost ten times more."""

    def __init__(self, enc: Encoding):
        self.enc = enc
        self.pre = enc.symbolic_state("e0")
        self.post = enc.symbolic_state("e1")
        self.act = sym_int("act@e")
        self.args = Args.symbolic("e")
        self.case = sym_case("case@e")
        self.term = enc.transition(self.pre, self.act, self.args, self.post, self.case)
        self.ctx = self.term.ctx
        self._keys = [(self.pre[k].decl(), self.post[k].decl(), k) for k in self.pre]
        self._consts: dict = {}
        cases = enc.instances()
        if any(ground for _, ground in cases):
            raise ValueError("the evaluator names a step's case by its action: ground cases are not supported")
        self._case_of = {name: i for i, (name, _) in enumerate(cases)}

    def _const(self, v, width=None):
        key = (type(v) is bool, v, width)      # True == 1 as a dict key
        c = self._consts.get(key)
        if c is None:
            c = z3.BoolVal(v, self.ctx) if isinstance(v, bool) else z3.BitVecVal(v, width or 8, self.ctx)
            self._consts[key] = c
        return c

    def accepts(self, rec: Record) -> bool:
        m = z3.Model(self.ctx)
        ref, mr = self.ctx.ref(), m.model
        for dpre, dpost, k in self._keys:
            z3.Z3_add_const_interp(ref, mr, dpre.ast, self._const(rec.pre[k]).ast)
            z3.Z3_add_const_interp(ref, mr, dpost.ast, self._const(rec.post[k]).ast)
        z3.Z3_add_const_interp(ref, mr, self.act.decl().ast, self._const(self.enc.index[rec.action]).ast)
        z3.Z3_add_const_interp(ref, mr, self.case.decl().ast, self._const(self._case_of[rec.action], 16).ast)
        for f in ACTION_ARG_FIELDS[rec.action]:
            z3.Z3_add_const_interp(ref, mr, getattr(self.args, f).decl().ast, self._const(getattr(rec.A, f)).ast)
        return z3.is_true(m.eval(self.term, model_completion=True))

    def first_refused(self, records: list[Record]) -> int | None:
        """The index of the first step the term refuses, or None."""
        return next((n for n, r in enumerate(records) if not self.accepts(r)), None)


ARG_NAMES_FIELDS = ACTION_ARG_FIELDS


def arg_domain(enc: Encoding, field_name: str) -> list:
    Z = enc.sizes
    return {
        "client": list(range(Z.clients)), "server": list(range(Z.servers)), "transport": [0, 1],
        "declare": [False, True], "tool": [0, 1], "req": list(range(Z.requests)), "run": list(range(Z.runs)),
        "intr": list(range(Z.interrupts)), "kind": [0, 1, 2], "form": [False, True], "resp": [0, 1, 2],
        "ref_run": list(range(-1, Z.runs)), "ref_form": [0, 1], "header": [False, True],
        "key": list(range(-1, Z.interrupts)), "subject": list(range(Z.subjects)), "method": [0, 1],
        "op": list(range(-1, Z.hops + 1)), "long": [False, True],
    }[field_name]


def guard_moves(enc: Encoding, world, state: dict, action: str) -> list[dict]:
    """The concrete moves the encoding's guard enables in `state` (decoded in `world`)."""
    fields = ARG_NAMES_FIELDS[action]
    out = []
    for combo in itertools.product(*[arg_domain(enc, f) for f in fields]):
        A = Args(**dict(zip(fields, combo)))
        if action == "tasks_get" or action == "tasks_update" or action == "tasks_cancel":
            if A.transport == 1 and A.header is False:
                continue        # stdio carries no header: the header choice is fixed (one move)
        g, _ = enc.step(state, action, A)
        if g is True:
            values = {f: getattr(A, f) for f in Args.__dataclass_fields__}
            args = decode_args(world, action, values)
            if args not in out:
                out.append(args)
    return out


def guards_exact(enc: Encoding, world) -> list[str]:
    """Compare, for every action, the guard-enabled moves with the model's moves in this state."""
    state = abstract(world, enc)
    problems = []
    for a in enc.actions:
        want = encoded_moves(world, a)
        got = guard_moves(enc, world, state, a)
        extra = [m for m in got if m not in want]
        missing = [m for m in want if m not in got]
        if extra or missing:
            problems.append(f"{a}: encoding-only {extra[:3]}, model-only {missing[:3]}")
    return problems


def formulas_agree(enc: Encoding, seed: int, length: int = 25, props=None) -> str | None:
    """Walk the executable model running the catalogue's checks after every step (as check_step
    does); at the first step where a Z3 formula is violated, the catalogue must have failed the
    same requirement id by then. None when they agree, else what differs."""
    from verifier.engines.z3.bmc import catalogue_props
    from verifier.engines.z3.properties import props_for
    props = catalogue_props() if props is None else props
    formulas = props_for(enc)
    rng = random.Random(seed)
    world = enc.world()
    names = list(enc.actions)
    failed: dict[str, int] = {}
    for n in range(length):
        enabled = [a for a in names if encoded_moves(world, a)]
        if not enabled:
            return None
        a = rng.choices(enabled, [WEIGHTS.get(x, 1.0) for x in enabled])[0]
        moves = encoded_moves(world, a)
        args = moves[rng.randrange(len(moves))]
        pre = abstract(world, enc)
        A = encode_args(world, a, args)
        step = world.apply(a, args)
        post = abstract(world, enc)
        for p in props:
            if p.asserted and p.check(world, step):
                for rid in p.ids:
                    failed.setdefault(rid, n)
        broken = [rid for rid, zp in formulas.items() if zp.formula(enc, pre, enc.index[a], A, post) is not True]
        if broken:
            missing = [rid for rid in broken if rid not in failed]
            if missing:
                return (f"seed {seed} step {n} {a}({args}): the Z3 formula of {', '.join(missing)} is violated but "
                        f"the catalogue did not fail it (it failed {sorted(failed) or 'nothing'})")
            return None
    return None
