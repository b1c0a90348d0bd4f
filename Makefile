# Seksenbir — make targets. `make run` and `make test` are the README's two commands.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help install lock run web web-api-types web-words test-web bench-web simulate test test-rabbitmq test-offline test-fast test-compiled lint typecheck contracts compile bench bench-smoke bench-mila mutation clean

help:            ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/ —/'

# requirements.lock pins every dependency (dev tools included) with hashes; the project itself
# is then installed editable on top, without its dependencies. `make lock` regenerates it.
$(STAMP): pyproject.toml requirements.lock
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q --require-hashes -r requirements.lock
	$(BIN)/pip install -q --no-deps --no-build-isolation -e .
	touch $(STAMP)

install: $(STAMP) ## create .venv and install the project with its dev tools (from the lock)

lock:            ## regenerate requirements.lock from pyproject.toml (pip-tools in .venv-lock)
	$(PY) -m venv .venv-lock
	.venv-lock/bin/pip install -q pip-tools
	.venv-lock/bin/pip-compile -q --extra dev --generate-hashes --strip-extras --allow-unsafe \
	  --no-emit-index-url --no-emit-find-links -o requirements.lock pyproject.toml

HOST ?= 127.0.0.1
PORT ?= 8081
run: $(STAMP) web ## the whole stack (seksenbir up) on HOST:PORT (127.0.0.1:8081), the browser client at /; SEKSENBIR_* settings pass through
	$(BIN)/seksenbir up --host $(HOST) --port $(PORT)

# The browser client (docs/web.md, ADR-78): Node.js >= 20 and npm build web/ into web/dist,
# again only when a source, the map data or the lock changed. npm ci installs from the lock.
WEB_SOURCES := $(shell find web/src web/public web/data web/scripts web/pwa -type f 2>/dev/null) \
  web/index.html web/vite.config.ts web/tsconfig.json web/package.json web/package-lock.json
# npm ci empties node_modules, stamps and all: the lock's digest is written where the tests' own
# `npm ci` (tests/node_tools.py, STAMP) looks for it, or each `make test` installed twice and
# built web/ again (the tests' install removed .installed, `make run`'s removed their stamp).
define WEB_LOCK_STAMP
import hashlib, pathlib
web = pathlib.Path("web")
digest = hashlib.sha256((web / "package-lock.json").read_bytes()).hexdigest()
(web / "node_modules" / ".seksenbir-lock-sha256").write_text(digest)
endef
export WEB_LOCK_STAMP
web/node_modules/.installed: web/package.json web/package-lock.json
	@command -v npm >/dev/null || { echo "web: npm (Node.js >= 20) is needed to build the browser client"; exit 1; }
	cd web && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	$(PY) -c "$$WEB_LOCK_STAMP"
	touch $@
web/dist/index.html: web/node_modules/.installed $(filter-out web/src/generated/%,$(WEB_SOURCES))
	cd web && npm run --silent build
web: web/dist/index.html ## build the browser client into web/dist when its sources changed

web-api-types: $(STAMP) web/node_modules/.installed ## regenerate web/src/api/schema.d.ts from the served OpenAPI document
	$(BIN)/python -m tests.web.api_types

web-words: $(STAMP) ## regenerate web/src/api/words.json (the catalogue's words the client says, ADR-170)
	$(BIN)/python -m tests.web.catalogue_words

# The client's unit tests (vitest) and its end-to-end test in headless Chromium (playwright-core
# driving the system's /usr/bin/chromium, never a downloaded browser) against a stack it starts
# on WEB_E2E_PORT; screenshots go to web/artefacts/ (git-ignored).
WEB_E2E_PORT ?= 18360
test-web: $(STAMP) web ## the browser client's unit tests and its end-to-end test in headless Chromium
	cd web && npm run --silent test
	cd web && WEB_E2E_PORT=$(WEB_E2E_PORT) SEKSENBIR_BIN=$(CURDIR)/$(BIN)/seksenbir npm run --silent e2e
	cd web && WEB_E2E_PORT=$(WEB_E2E_PORT) SEKSENBIR_BIN=$(CURDIR)/$(BIN)/seksenbir npm run --silent e2e:pwa
	cd web && WEB_E2E_PORT=$(WEB_E2E_PORT) SEKSENBIR_BIN=$(CURDIR)/$(BIN)/seksenbir npm run --silent e2e:push

simulate: $(STAMP) ## a whole simulated trial season, Divan by Divan (SEED=7 by default)
	$(BIN)/seksenbir simulate --seed $${SEED:-7}

# pytest-xdist: one test process per core (each has its own database and Redis db, see
# tests/conftest.py). TEST_WORKERS=0 runs the suite in this process.
TEST_WORKERS ?= 2
test: $(STAMP)   ## the whole suite: lint, types, import contracts, pytest (TEST_WORKERS=2 processes)
	$(MAKE) --no-print-directory lint typecheck contracts
	$(BIN)/pytest -q -n $(TEST_WORKERS)

# ADR-95: the tests marked `broker` (those that request tests/conftest.py's broker_url: the
# worker, scheduler, dead-letter and fault tests) again on RabbitMQ, each test process in a
# virtual host of its own (rabbitmqctl); RabbitMQ on 127.0.0.1:5672 (guest/guest) or
# SEKSENBIR_TEST_AMQP_URL. A run that cannot have RabbitMQ fails, saying why. .ci/run calls it
# after `make test`, which runs the same tests on Redis.
test-rabbitmq: $(STAMP) ## the worker, scheduler, dead-letter and fault tests again on RabbitMQ (ADR-95)
	$(BIN)/pytest -q -n $(TEST_WORKERS) -m broker --broker rabbitmq

# Closed ports (9: discard, never served here) stand for both test servers, and the env wins
# over every fallback in tests/conftest.py, so a non-integration test that reached a server fails.
OFFLINE := SEKSENBIR_TEST_PG_DSN=postgresql://postgres@127.0.0.1:9/none SEKSENBIR_TEST_REDIS_URL=redis://127.0.0.1:9/0
test-offline: $(STAMP) ## pytest -m "not integration" with no server reachable (proves it needs none)
	$(OFFLINE) $(BIN)/pytest -q -m "not integration"

test-fast: $(STAMP) ## pytest only, domain tests only
	$(BIN)/pytest -q tests/domain

lint: $(STAMP)   ## ruff check and format check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP) ## mypy --strict on every package: shared, services, entrypoints, bench
	$(BIN)/mypy

contracts: $(STAMP) ## import-linter: the domain imports no I/O; services are independent; layers
	PYTHONPATH=. $(BIN)/lint-imports

# ADR-60: optional. The Divan pipeline's modules built by mypyc (gcc, Python's headers) into
# build/compiled with a manifest of the sources' SHA-256; a process uses them only with
# SEKSENBIR_COMPILED=1 and every hash matching (shared/compiled.py). Nothing else needs it.
compile: $(STAMP) ## optional (ADR-60): the pipeline's hot modules built by mypyc into build/compiled
	$(BIN)/python -c 'import shared.compiled as c; c.main(["build"])'

test-compiled: $(STAMP) ## the golden digests and the guard against the compiled build (builds it)
	$(BIN)/pytest -q -n 0 --compiled tests/compiled

# The browser client's figures (web/bench/web.bench.mjs; docs/benchmarks.md): cold and warm load,
# panning at 4x CPU throttling, Divan to report; a stack of its own on WEB_BENCH_PORT.
WEB_BENCH_PORT ?= 18365
bench-web: $(STAMP) web ## the browser client's bench in headless Chromium (prints figures; not a test)
	cd web && WEB_E2E_PORT=$(WEB_BENCH_PORT) SEKSENBIR_BIN=$(CURDIR)/$(BIN)/seksenbir npm run --silent bench

bench: $(STAMP)  ## benchmarks (print figures; not tests)
	$(BIN)/python -m bench.adjudication
	$(BIN)/python -m bench.season
	$(BIN)/python -m bench.strength

# Every bench module at a small "smoke" size, one process each (sizes in bench/smoke.py), so a
# bench that no longer runs fails CI (.ci/run) instead of rotting. It prints figures and judges
# none. Not run here, with the reason: bench.adjudication_vs_mila needs MILA `diplomacy`, kept
# out of the project's environment (`make bench-mila`); bench.mutation is a full domain test
# run per mutant, about 20 minutes (`make mutation`). About 2 minutes on 2 cores.
bench-smoke: $(STAMP) ## every benchmark at a small size; fails when one crashes (bench/smoke.py)
	$(BIN)/python -m bench.smoke

# MILA `diplomacy` is a peer measured against, never a project dependency: it gets an
# environment of its own with the project installed without its dev tools.
BENCH_VENV := .venv-bench
$(BENCH_VENV)/.installed: pyproject.toml
	$(PY) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install -q --upgrade pip
	$(BENCH_VENV)/bin/pip install -q -e . 'diplomacy==1.1.2'
	touch $@

# Both figures: the pure-Python modules, then the compiled ones (ADR-60) when they build here.
bench-mila: $(BENCH_VENV)/.installed ## our Divan pipeline beside MILA diplomacy's movement phase
	@$(MAKE) --no-print-directory compile || echo "bench-mila: make compile failed (ADR-60 needs gcc and Python's headers): pure figures only"
	SEKSENBIR_COMPILED=0 $(BENCH_VENV)/bin/python -m bench.adjudication_vs_mila
	@if [ -f build/compiled/manifest.json ]; then \
	  echo "SEKSENBIR_COMPILED=1 $(BENCH_VENV)/bin/python -m bench.adjudication_vs_mila"; \
	  SEKSENBIR_COMPILED=1 $(BENCH_VENV)/bin/python -m bench.adjudication_vs_mila; fi

mutation: $(STAMP) ## mutation testing of the rules modules (slow)
	$(BIN)/python -m bench.mutation

clean:           ## remove the venv and caches
	rm -rf $(VENV) $(BENCH_VENV) .venv-lock build/compiled .pytest_cache .mypy_cache .ruff_cache .hypothesis
