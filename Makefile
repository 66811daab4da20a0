# Two commands are the contract: `make run` and `make test`. Both share one venv,
# re-installed only when pyproject.toml changes (the stamp file).
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench lint fix clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	# The CPU build of torch first: resolved later through sentence-transformers it
	# would pull several GB of CUDA packages.
	$(BIN)/pip install "torch==2.13.0"
	$(BIN)/pip install -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python run.py serve

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m bench

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

fix: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV)
