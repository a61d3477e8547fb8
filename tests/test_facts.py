"""Monitor facts copied on write (model.facts): a clone and its origin never see each other's
changes, and a fingerprint form is never stale."""
from __future__ import annotations

import copy
import pickle

from model.facts import Facts
from model.snapshot import freeze, clone, fingerprint
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
