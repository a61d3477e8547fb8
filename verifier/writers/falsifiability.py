"""The falsifiability table: for every requirement id, the property that checks it, its verdict on the
baseline, and the built-in variants that refute it, generated from the gate's manifest.

"Refute" follows the id's kind: a variant refutes an S, T or L id when it makes its property
`refuted`, a witness (W) when it makes it `unreached`, and a strengthening closes a known gap (G)
when the gap's property `holds` under it. Each variant links to its committed counterexample and
carries the length of the shortest trace known. A variant whose S, T or L refutation only the gate's
exhaustive search found (its `bfs` record) is listed too, unlinked, with that search's length.

    python -m verifier.writers.falsifiability                      # print the table
    python -m verifier.writers.falsifiability --readme README.md   # write it between the README's markers
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

START = "<!-- falsifiability:start -->"
END = "<!-- end falsifiability -->"
REFUTES = {"S": ("refuted",), "T": ("refuted",), "L": ("refuted",), "W": ("unreached",), "G": ("holds",)}


def rows(manifest: dict, catalogue=None, requirements=None) -> list[dict]:
    """One row per (requirement id, property): id, kind, property, baseline verdict, refuting variants."""
    if catalogue is None:
        from properties.base import load_catalogue
        catalogue = list(load_catalogue().values())
    if requirements is None:
        from properties.requirements import REQUIREMENTS as requirements
    variants = manifest.get("variants", {})
    base = variants.get("baseline", {})
    out = []
    for rid, (kind, _source) in requirements.items():
        for p in (p for p in catalogue if rid in p.ids):
            refuting = []
            for name in sorted(variants):
                if name == "baseline":
                    continue
                verdict = variants[name].get("verdicts", {}).get(p.name)
                if verdict in REFUTES.get(kind, ()):
                    if kind == "G" and base.get("verdicts", {}).get(p.name) == "holds":
                        continue            # not a gap on the baseline either: nothing was closed
                    refuting.append((name, verdict, variants[name].get("lengths", {}).get(p.name)))
                elif kind in ("S", "T", "L"):
                    searched = [rec.get("lengths", {}).get(p.name) for rec in variants[name].get("bfs", {}).values()
                                if rec.get("verdicts", {}).get(p.name) == "refuted"]
                    if searched:
                        refuting.append((name, "refuted by the exhaustive search",
                                         min((n for n in searched if n is not None), default=None)))
            out.append({"id": rid, "kind": kind, "property": p.name,
                        "baseline": base.get("verdicts", {}).get(p.name, "not recorded"),
                        "baseline_length": base.get("lengths", {}).get(p.name), "variants": refuting})
    return out


def _variant_cell(name: str, verdict: str, length, prop: str, root: str) -> str:
    if verdict == "refuted" and length is not None:
        return f"[{name}]({root}/{name}/{prop}/trace.md) ({length})"
    if verdict == "refuted by the exhaustive search":
        return f"{name} ({length if length is not None else '?'}, exhaustive)"
    return name


def table(manifest: dict, root: str = "counterexamples", catalogue=None, requirements=None) -> str:
    """The Markdown table (with a one-line legend)."""
    lines = ["| id | kind | property | baseline | refuted by (shortest counterexample, steps) |",
             "|---|---|---|---|---|"]
    for r in rows(manifest, catalogue, requirements):
        base = r["baseline"]
        if base == "known-gap" and r["baseline_length"] is not None:
            base = f"[known-gap]({root}/baseline/{r['property']}/trace.md) ({r['baseline_length']})"
        cells = ", ".join(_variant_cell(n, v, length, r["property"], root) for n, v, length in r["variants"])
        lines.append(f"| {r['id']} | {r['kind']} | `{r['property']}` | {base} | {cells or '**none**'} |")
    legend = ("S, T and L ids are refuted by the variants listed; a witness (W) is made unreachable by them; "
              "a known gap (G) is closed (holds) under the strengthenings listed. A variant marked exhaustive "
              "is refuted by the gate's exhaustive search alone (no random-engine trace is committed). Generated from "
              f"`{root}/manifest.json` by `python -m verifier.writers.falsifiability --readme README.md`.")
    return legend + "\n\n" + "\n".join(lines)


def write_readme(readme: Path, text: str) -> bool:
    """Replace only what lies between the markers; True when the file changed."""
    content = readme.read_text(encoding="utf-8")
    start, end = content.find(START), content.find(END)
    if start < 0 or end < 0 or end < start:
        raise ValueError(f"{readme}: no `{START}` ... `{END}` markers")
    new = content[:start + len(START)] + "\n" + text.rstrip("\n") + "\n" + content[end:]
    if new == content:
        return False
    readme.write_text(new, encoding="utf-8")
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verifier.writers.falsifiability", description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", default="counterexamples/manifest.json")
    ap.add_argument("--readme", default=None, help="write the table between this file's falsifiability markers")
    args = ap.parse_args(argv)
    path = Path(args.manifest)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        print(f"falsifiability: {path}: no manifest (record one with `taskmodel gate --record`)", file=sys.stderr)
        return 3
    except ValueError as e:
        print(f"falsifiability: {path}: not a gate manifest ({e})", file=sys.stderr)
        return 3
    text = table(manifest, root=path.parent.as_posix())
    if args.readme is None:
        print(text)
        return 0
    try:
        changed = write_readme(Path(args.readme), text)
    except (OSError, ValueError) as e:
        print(f"falsifiability: {e}", file=sys.stderr)
        return 3
    print(f"{args.readme}: falsifiability table {'updated' if changed else 'unchanged'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
