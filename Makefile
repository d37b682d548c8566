# Entry points: make sim, make test, make bench, make deploy.  Each sets up .venv itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: sim test bench deploy venv clean browser

# make venv: create or update .venv; quick when pyproject.toml has not changed.
venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

sim: $(STAMP)
	$(BIN)/mancala-board sim $(SIMFLAGS)

test: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_FLAGS)

bench: $(STAMP)
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

deploy: $(STAMP)
	$(BIN)/mancala-board deploy $(DEPLOYFLAGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
