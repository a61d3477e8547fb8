"""Test configuration shared by every test directory.

The test package `tests/properties/` has the name of the source package `properties/`; test modules
are therefore imported by path (pytest's importlib mode), and the repository root comes first on
`sys.path` so that `import properties` always names the source package.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT in sys.path:
    sys.path.remove(ROOT)
sys.path.insert(0, ROOT)

import properties  # noqa: E402,F401  (the source package claims its name before any test package)


def pytest_configure(config):
    config.option.importmode = "importlib"


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def shared_dir():
    """The shared folder beside the repository (or TASKMODEL_SHARED)."""
    from verifier.runtime.schemas import shared_dir as find
    return find()


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the long explorations marked slow")


# `make test` hands each worker whole files (`--dist loadfile`): a module's costly fixtures (a live
# host, a Ray cluster, a stored graph, an exploration) are made once. The files that take longest
# go first, so that the two workers finish together rather than one waiting on a late long file.
LONGEST_FIRST = ("test_z3.py", "test_incremental.py", "test_bfs.py", "test_environment.py", "test_z3_harness.py",
                 "test_validate.py", "test_cluster.py", "test_footprints.py", "test_unexercised.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))      # stable: the rest keep their order
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="a long exploration: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
