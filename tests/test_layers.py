"""The layout's rules, read from the code's own imports (docs/architecture.md).

Layers, bottom to top: the model; the properties; the runtime services and result types; the
engines (and the traffic validator); the writers; the command line. A module imports only from its
own layer or those below it, and a writer never imports an engine. No two packages import each
other, however indirectly, and no private name (`_x`) is imported from another package.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = [("model",), ("properties",), ("verifier.runtime", "verifier"), ("verifier.engines", "verifier.validate"),
          ("verifier.writers",), ("verifier.cli",)]


def layer_of(module: str) -> int:
    best, found = -1, None
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, found = len(p), i
    return found


def modules() -> dict[str, Path]:
    out = {}
    for top in ("model", "properties", "verifier"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[".".join(parts)] = path
    return out


MODULES = modules()


def package_of(module: str) -> str:
    path = MODULES[module]
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imports(module: str):
    """(imported module, name or None, line) for every import of ours, at any depth of the file."""
    path = MODULES[module]
    pkg = package_of(module)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in ("model", "properties", "verifier"):
                    yield a.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts) + (("." + node.module) if node.module else "")
            if base.split(".")[0] not in ("model", "properties", "verifier"):
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                yield (sub, None, node.lineno) if sub in MODULES else (base, a.name, node.lineno)


def edges():
    for m in MODULES:
        for target, name, line in imports(m):
            yield m, target, name, line


def test_every_module_has_a_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_imports_run_down_the_layers():
    wrong = []
    for m, target, _name, line in edges():
        if target not in MODULES:
            continue
        lm, lt = layer_of(m), layer_of(target)
        writer_on_engine = m.startswith("verifier.writers") and layer_of(target) == 3
        if lt > lm or writer_on_engine:
            wrong.append(f"{MODULES[m].relative_to(ROOT)}:{line} imports {target}")
    assert wrong == []


def test_no_cycle_between_packages():
    graph: dict[str, set] = {}
    for m, target, _name, _line in edges():
        if target in MODULES and package_of(m) != package_of(target):
            graph.setdefault(package_of(m), set()).add(package_of(target))
    # A package importing one of its own subpackages (or its parent) is one room: only cycles
    # between packages that are not nested count.
    def nested(a, b):
        return a.startswith(b + ".") or b.startswith(a + ".")

    cycles = []
    for start in graph:
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, ()):
                if nested(node, nxt):
                    continue
                if nxt == start:
                    cycles.append(" -> ".join(path + [start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    assert cycles == []


def test_no_private_name_crosses_a_package():
    crossing = [f"{MODULES[m].relative_to(ROOT)}:{line} imports {target}.{name}"
                for m, target, name, line in edges()
                if name and name.startswith("_") and not name.startswith("__") and target in MODULES
                and package_of(m) != package_of(target)]
    assert crossing == []


@pytest.mark.parametrize("room", ["verifier.engines", "verifier.runtime"])
def test_engines_and_services_never_print_or_exit(room):
    """An engine returns a result: printing a table and choosing an exit code are the CLI's."""
    found = []
    for m, path in MODULES.items():
        if not m.startswith(room):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else (f"{getattr(f.value, 'id', '')}.{f.attr}"
                                                            if isinstance(f, ast.Attribute) else "")
                if name in ("sys.exit", "exit", "argparse.ArgumentParser") or (
                        name == "print" and not any(k.arg == "file" for k in node.keywords)):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    assert found == []


def test_a_planted_upward_import_is_caught(tmp_path, monkeypatch):
    """The rule can fail: an engine module importing the command line is reported."""
    planted = ROOT / "verifier" / "engines" / "random" / "explore.py"
    text = planted.read_text(encoding="utf-8") + "\nfrom verifier.cli import commands  # planted\n"
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: text if self == planted
                        else Path.open(self, encoding=encoding).read())
    with pytest.raises(AssertionError, match="imports verifier.cli.commands"):
        test_imports_run_down_the_layers()
