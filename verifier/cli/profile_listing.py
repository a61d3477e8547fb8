"""`taskmodel list --profile NAME`: the ids a profile judges and those it leaves out, with why
(properties/profiles.py)."""
from __future__ import annotations

import json

from properties.profiles import PROFILE_DOCS, judged, out_of_scope
from properties.requirements import REQUIREMENTS


def profile_listing(name: str) -> dict:
    return {"profile": name, "what": PROFILE_DOCS[name],
            "judged": [{"id": rid, "kind": REQUIREMENTS[rid][0], "source": REQUIREMENTS[rid][1]}
                       for rid in judged(name)],
            "out_of_scope": [{"id": rid, "why": why} for rid, why in out_of_scope(name).items()]}


def print_profile(name: str, as_json: bool) -> None:
    data = profile_listing(name)
    if as_json:
        print(json.dumps(data, indent=1))
        return
    print(f"profile {name}: {data['what']}")
    print(f"judged ({len(data['judged'])}):")
    for r in data["judged"]:
        print(f"  {r['id']:<7} {r['source']}")
    print(f"out of scope ({len(data['out_of_scope'])}):")
    for r in data["out_of_scope"]:
        print(f"  {r['id']:<7} {r['why']}")
