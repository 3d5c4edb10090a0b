# The two quick-start commands: `make serve` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SLOTLAB_TEST_DATABASE_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/test
export SLOTLAB_TEST_DATABASE_URL
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) * 2 )))

.PHONY: install install-test serve test test-slow lint bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

# Test dependencies, Debian's Chromium for the browser tests (Playwright drives it), Debian's
# PgBouncer for the connection-pooler tests, Debian's Prometheus for the metrics test (each
# test starts its own; the packages' services are not used) and dieharder for the evidence
# bundle's raw-output battery. apt waits for another install's lock (two checkouts installing at
# once) rather than failing.
install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	@missing=""; [ -x /usr/bin/chromium ] || missing="chromium"; \
	[ -x /usr/sbin/pgbouncer ] || missing="$$missing pgbouncer"; \
	[ -x /usr/bin/prometheus ] || missing="$$missing prometheus"; \
	[ -x /usr/bin/dieharder ] || missing="$$missing dieharder"; \
	if [ -n "$$missing" ]; then apt-get -o DPkg::Lock::Timeout=600 update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $$missing; fi

# The main job: the game server with the browser client, on SQLite (var/slotlab.db);
# `make serve PORT=8080 HOST=0.0.0.0` listens elsewhere.
HOST ?= 127.0.0.1
PORT ?= 8000
serve: install
	$(BIN)/slotlab serve --host $(HOST) --port $(PORT)

# Tests run in parallel, a file's tests together so that its servers and browser start once; two
# workers per core, as the tests wait on browsers, servers and subprocesses more than they
# compute. The 25 slowest are listed so that each change keeps its cost in view.
# The long statistical and end-to-end runs are marked slow: each has a short version in
# `make test`, and `make test-slow` runs them whole. The games' kernels are compiled first, in
# parallel, into numba's cache (`slotlab compile`): each worker would otherwise compile them again.
test: install-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy --strict src/slotlab
	$(BIN)/slotlab compile
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile --durations=25 -m "not slow"

test-slow: install-test
	$(BIN)/slotlab compile
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile --durations=25 -m slow

bench: install-test
	SLOTLAB_BENCH_PG=postgresql://postgres@127.0.0.1:5432/test $(BIN)/python benchmarks/run_all.py
