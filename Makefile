# The two commands of the README: `make verify` (the main job) and `make test`.
.PHONY: setup verify test gate check diagrams report bench

setup:
	@bash scripts/setup.sh

# Verify the RFC model and every built-in amendment; write counterexamples, diagrams and the report.
verify: setup
	bash scripts/verify.sh

# The tests (the same command .ci/run calls). Longer explorations: `make test ARGS=--slow`.
test:
	@bash scripts/setup.sh --browser
	.venv/bin/python -m pytest -q -n 2 --dist loadfile $(ARGS)

# PYTHONHASHSEED: the gate's verdicts and traces must not depend on string hashing.
gate: setup
	PYTHONHASHSEED=0 .venv/bin/taskmodel gate

bench: setup
	.venv/bin/python benchmarks/explore.py
