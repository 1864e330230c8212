# taskforge: `make run` sets up and runs the nightly cycle on the shipped samples; `make test` runs the suite.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

VERL_VENV := .venv-verl
VERL_STAMP := $(VERL_VENV)/.installed-stamp

SWEBENCH_VENV := .venv-swebench
SWEBENCH_STAMP := $(SWEBENCH_VENV)/.installed-stamp

.PHONY: venv verl-venv swebench-venv run test bench clean

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "taskforge needs $(PYTHON)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,scale]"
	touch $(STAMP)

venv: $(STAMP)

# verl (CPU-only: PyTorch's CPU build) beside taskforge, for the test that runs verl's own dataset and tool
# dispatch on a release (tests/test_family_tools.py); kept apart so the main environment's pins stay as they are.
$(VERL_STAMP): pyproject.toml
	test -x $(VERL_VENV)/bin/python || $(PYTHON) -m venv $(VERL_VENV)
	$(VERL_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VERL_VENV)/bin/python -m pip install --quiet "torch==2.13.0" "verl==0.9.1" -e .
	touch $(VERL_STAMP)

verl-venv: $(VERL_STAMP)

# The official SWE-bench harness (swebench from PyPI) beside taskforge, whose launcher runs it with every container's
# network off (`python -m taskforge.sandbox.swebench_harness`, tests/test_swebench_harness.py); kept apart so the
# harness's pins stay out of the main environment.
$(SWEBENCH_STAMP): pyproject.toml
	test -x $(SWEBENCH_VENV)/bin/python || $(PYTHON) -m venv $(SWEBENCH_VENV)
	$(SWEBENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(SWEBENCH_VENV)/bin/python -m pip install --quiet "swebench==5.0.2" -e .
	touch $(SWEBENCH_STAMP)

swebench-venv: $(SWEBENCH_STAMP)

run: venv
	$(BIN)/taskforge cycle

# Two workers (CI has two cores; much of a test's time is spent waiting on containers, servers and
# subprocesses); each test file stays on one worker, so its module fixtures are built once.
test: venv
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder --durations=15

bench: venv
	$(BIN)/python bench/all.py

clean:
	rm -rf data/out .pytest_cache
