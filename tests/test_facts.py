"""Monitor facts copied on write (model.facts): a clone and its origin never see each other's
changes, and a fingerprint form is never stale."""
from __future__ import annotations

import copy
import pickle

import pytest

from model.facts import Facts, Leaves
from model.snapshot import encoded, clone, fingerprint, freeze
from model.world import World


def test_a_fork_and_its_origin_never_see_each_others_changes():
    a = Facts({"K": {"x": {1}}, "T": ("t",)})
    b = a.fork()
    b["K"]["x"].add(2)                         # the child changes what it was given
    assert dict.get(a, "K") == {"x": {1}}
    a.setdefault("K", {})["y"] = 3             # the origin, after the fork, copies too
    assert b["K"] == {"x": {1, 2}} and a["K"] == {"x": {1}, "y": 3}
    assert a.peek("T") is b.peek("T")          # immutable values are shared, never copied


def test_peek_shares_and_get_copies_once():
    a = Facts({"K": {"x": 1}})
    b = a.fork()
    assert b.peek("K") is a.peek("K")
    mine = b.get("K")
    assert mine is not a.peek("K") and b.get("K") is mine      # copied once, then its own


def test_the_fingerprint_form_follows_every_change():
    a = Facts({"K": {"x": 1}, "K.at": {"x": 7}})
    first = a.monitor_form(freeze)
    assert first == (("K", (("x", 1),)),)      # annotations (a "." in the key) are left out
    got = a.get("K")                           # sealed by the form: a copy, the form stays right
    got["x"] = 2
    assert a.monitor_form(freeze) == (("K", (("x", 2),)),) and first == (("K", (("x", 1),)),)
    a["L"] = 1
    del a["K"]
    assert a.monitor_form(freeze) == (("L", 1),)
    a.update(M=[1])
    a.pop("L")
    assert a.monitor_form(freeze) == (("M", (1,)),)


def test_pickle_and_deepcopy_keep_the_values():
    a = Facts({"K": {"x": {1}}})
    for b in (pickle.loads(pickle.dumps(a)), copy.deepcopy(a)):
        assert type(b) is Facts and b == a
        b["K"]["x"].add(2)
        assert a["K"] == {"x": {1}}


def test_a_clone_whose_facts_change_in_place_has_another_fingerprint():
    w = World()
    w.facts["OWN-2"] = {}
    before = fingerprint(w)
    c = clone(w)
    assert fingerprint(c) == before
    c.facts.setdefault("OWN-2", {})["run1"] = ("r1", None)
    assert fingerprint(c) != before and fingerprint(w) == before


def test_a_leaves_map_has_a_plain_dicts_form_and_copies_apart():
    plain = {"run2": ("r1", None), "run1": 3}
    leaves = Leaves(plain)
    assert freeze(leaves) == freeze(plain) and type(freeze(leaves)) is tuple
    a = Facts({"K": leaves})
    b = a.fork()
    b["K"]["run3"] = "x"
    assert type(b["K"]) is Leaves and dict.get(a, "K") == plain
    assert type(pickle.loads(pickle.dumps(leaves))) is Leaves


@pytest.mark.parametrize("bad", [True, 1.0, {"x": 1}, [1], ("r1", True), frozenset({"a"})])
def test_a_leaves_map_refuses_what_equals_another_form(bad):
    # True == 1 and 1.0 == 1, but their fingerprint forms differ: compared by ==, they would merge states
    with pytest.raises(TypeError):
        Leaves()["k"] = bad
    with pytest.raises(TypeError):
        Leaves().setdefault(bad if isinstance(bad, (bool, float, tuple)) else "k", bad)


def _forms_equal(a, b) -> bool:
    return encoded(a.monitor_form(freeze)) == encoded(b.monitor_form(freeze))


@pytest.mark.parametrize("change", [
    lambda f: None,
    lambda f: f["K"].__setitem__("run1", ("r2", None)),            # a value
    lambda f: f["K"].pop("run1") and f["K"].__setitem__("run1", ("r1", None)),   # the order
    lambda f: f["P"]["pi"].__setitem__("run9", "working"),          # inside a plain dict
    lambda f: f["P"].__setitem__("pi", f["P"].pop("pi")),           # a plain dict's order
    lambda f: f.__setitem__("N", 1),                                # a key
    lambda f: f.__setitem__("N.at", 1),                             # an annotation: the same form
    lambda f: f.__setitem__("S", {1}),                              # a plain value
])
def test_alike_is_the_equality_of_the_forms(change):
    a = Facts({"K": Leaves({"run1": ("r1", None), "run2": ("r2", "x")}), "P": {"pi": Leaves({"run1": "working"}), "shown": Leaves()},
               "S": {True}})
    b = a.fork()
    change(b)
    want = _forms_equal(*pickle.loads(pickle.dumps((a, b))))      # copies: taking the forms keeps them
    assert a.alike(b, freeze, encoded) is want and b.alike(a, freeze, encoded) is want
    b.monitor_form(freeze)                     # forms held by one side, then both
    assert a.alike(b, freeze, encoded) is want
    a.monitor_form(freeze)
    assert a.alike(b, freeze, encoded) is want
