# Two commands for a newcomer: `make run` (the service) and `make test` (the tests).
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run test test-pooler test-copilotkit check lint bench lock

setup: $(VENV)/.installed node_modules/.installed

# the test-call page's browser library (livekit-client), pinned in package.json / package-lock.json
node_modules/.installed: package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --no-audit --no-fund --loglevel=error && touch $@; \
	else \
		echo "npm not found: the test-call page will say how to install livekit-client"; \
	fi

# dependencies come from the lock files (hashes checked); `make lock` regenerates them
$(VENV)/.installed: pyproject.toml requirements-dev.lock
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --require-hashes -r requirements-dev.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

LOCK := $(BIN)/uv pip compile pyproject.toml --python-version 3.11 --generate-hashes --quiet

lock: setup
	$(LOCK) -o requirements.lock
	$(LOCK) --extra dev -o requirements-dev.lock

run: setup
	VENV=$(VENV) scripts/run-local

# the suite in parallel (pytest-xdist): each worker its own embedded Postgres and temporary
# directories (tests/conftest.py). Most tests wait (on Postgres, on audio played in real time, on
# processes) rather than compute, so twice as many workers as cores; TEST_WORKERS=1 for one.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) * 2 )))
PARALLEL := -n $(TEST_WORKERS) --dist worksteal

test: setup
	$(BIN)/pytest -q $(PARALLEL)

# the suites that send the service's SQL (memory, chat sessions, documents) and their callers
# (HTTP API, job runner) again, through a real PgBouncer in transaction mode: only their tests
# whose statements go through the pool (tests/conftest.py); needs the `pgbouncer` binary
# (apt-get install pgbouncer); see docs/testing.md
POOLED := tests/memory tests/chat tests/documents tests/api tests/jobrunner
test-pooler: setup
	$(BIN)/pytest -q $(PARALLEL) --through-pgbouncer $(POOLED)

# the CopilotKit example (examples/copilotkit, README there): its packages (about 1,150, from its
# own lock file, kept out of `setup`), its page built, then its test in headless Chromium;
# REQUIRE_COPILOTKIT turns the test's skip (no packages, no page) into a failure
COPILOTKIT := examples/copilotkit
$(COPILOTKIT)/node_modules/.installed: $(COPILOTKIT)/package.json $(COPILOTKIT)/package-lock.json
	cd $(COPILOTKIT) && SCARF_ANALYTICS=false npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(COPILOTKIT)/dist/app.js: $(COPILOTKIT)/node_modules/.installed $(COPILOTKIT)/build.mjs $(wildcard $(COPILOTKIT)/page/*)
	cd $(COPILOTKIT) && node build.mjs

test-copilotkit: setup $(COPILOTKIT)/dist/app.js
	REQUIRE_COPILOTKIT=1 $(BIN)/pytest -q tests/agui/test_copilotkit.py

# the inner loop (about a minute): the linters, then the tests that need no database and start
# no process (marked `unit` automatically, tests/conftest.py)
check: lint
	$(BIN)/pytest -q -m unit

lint: setup
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy .
	$(BIN)/lint-imports

bench: setup
	$(BIN)/python -m bench.memory_bench
	$(BIN)/python -m bench.recall_bench
	$(BIN)/python -m bench.add_route_bench
	$(BIN)/python -m bench.voice_bench
	$(BIN)/python -m bench.first_audio_bench
	$(BIN)/python -m bench.search_bench
	$(BIN)/python -m bench.documents_bench
	$(BIN)/python -m bench.documents_ranking_bench
	$(BIN)/python -m bench.ops_retention_bench
	$(BIN)/python -m bench.burst_bench
	$(BIN)/python -m bench.text_session_bench
	$(BIN)/python -m bench.chat_wire_bench
	$(BIN)/python -m bench.turn_cost_bench
	$(BIN)/python -m bench.agui_bench
	$(BIN)/python -m bench.cli_bench
