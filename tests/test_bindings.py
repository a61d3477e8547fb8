"""The validator's id bindings (`verifier.validate.ids.Bindings`): a copy shares each kind's maps
until one side binds an id of that kind, and neither then sees the other's binding."""
from __future__ import annotations

from verifier.validate.ids import Bindings


def test_a_copy_and_its_origin_bind_apart():
    a = Bindings()
    a.bind("run", "acme/real1", "acme/model1")
    b = a.copy()
    a.bind("run", "acme/real3", "acme/model3")          # the origin binds after the copy: the copy does not see it
    b.bind("run", "acme/real2", "acme/model2")          # the copy binds: nor the origin
    assert a.real["run"] == {"acme/real1": "acme/model1", "acme/real3": "acme/model3"}
    assert b.real["run"] == {"acme/real1": "acme/model1", "acme/real2": "acme/model2"}
    assert b.to_real("run", "acme/model3") is None and a.to_model("run", "acme/real2") is None
    c = b.copy()
    c.bind("interrupt", "i-real", "i-model")            # another kind: the run maps stay shared
    assert c.real["run"] is b.real["run"] and b.to_model("interrupt", "i-real") is None
    assert not b.can_bind("run", "acme/real9", "acme/model2") and c.can_bind("interrupt", "i-x", "i-y")
