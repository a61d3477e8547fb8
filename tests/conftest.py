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


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="a long exploration: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
