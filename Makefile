# taskforge: `make run` sets up and runs the nightly cycle on the shipped samples; `make test` runs the suite.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: venv run test bench clean

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "taskforge needs $(PYTHON)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,scale]"
	touch $(STAMP)

venv: $(STAMP)

run: venv
	$(BIN)/taskforge cycle

test: venv
	$(BIN)/python -m pytest -q

bench: venv
	$(BIN)/python bench/all.py

clean:
	rm -rf data/out .pytest_cache
