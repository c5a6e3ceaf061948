# Two commands for a newcomer: `make run` (the service) and `make test` (the tests).
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run test lint bench

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

run: setup
	$(BIN)/python -m memory migrate

test: setup
	$(BIN)/pytest -q

lint: setup
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy .

bench: setup
	$(BIN)/python -m bench.memory_bench
