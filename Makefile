# AmbiSite: `make demo` to try it, `make test` to run every test.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
export DEBUG ?= 1

.PHONY: install install-dev install-ml env browser compose-client demo serve serve-prod worker test coverage test-fast lint bench bench-load migrations-check clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.web: $(BIN)/python requirements.txt
	$(BIN)/pip install -q -r requirements.txt
	touch $@

$(VENV)/.dev: $(VENV)/.web requirements-dev.txt
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@

# torch first, pinned, so that nothing pulls a CUDA build (a local CPU wheel is found here).
$(VENV)/.ml: $(VENV)/.web requirements-ml.txt
	$(BIN)/pip install -q $$(grep -E '^torch==' requirements-ml.txt)
	$(BIN)/pip install -q -r requirements-ml.txt
	touch $@

install: $(VENV)/.web
install-dev: $(VENV)/.dev
install-ml: $(VENV)/.ml

# Debian's Chromium for the browser tests; Playwright never downloads a browser here.
browser:
	@command -v chromium >/dev/null || (apt-get update -q && apt-get install -y -q chromium chromium-driver)

# A Compose client for tests/test_deploy_files.py (`config -q` validates docker-compose.yml).
compose-client:
	@docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null || \
	  (apt-get update -q && apt-get install -y -q docker-compose)

# A development .env (DEBUG=1, a random SECRET_KEY) so that `python manage.py ...` works in a
# fresh shell; never overwrites an existing one. Settings read it; the tests never do.
env: .env
.env:
	@printf '# Development settings written by `make env` (see .env.example for production).\nDEBUG=1\nSECRET_KEY=%s\n' \
	  "$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))')" > $@
	@echo "Wrote a development .env (DEBUG=1)"

demo: install .env
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py import_ambistory data/ambistory/train.json --split train
	$(BIN)/python manage.py import_ambistory data/ambistory/dev.json --split dev
	$(BIN)/python manage.py ensure_researcher
	@echo "Serving on http://$(HOST):$(PORT)/ (Ctrl-C stops web and worker)"
	@trap 'trap - INT TERM EXIT; kill 0' INT TERM EXIT; \
	  $(BIN)/celery -A ambisite worker --loglevel=warning --concurrency=1 & \
	  $(BIN)/python manage.py runserver $(HOST):$(PORT) --noreload

serve: install
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

# Production server (docs/deployment.md): collected static files and gunicorn with the repo's
# config (ambisite/gunicorn.conf.py) on $(HOST):$(PORT), DEBUG=0. SECRET_KEY (and the rest of
# .env.example) must come from the environment or .env; run `manage.py migrate` first.
serve-prod: install
	DEBUG=0 $(BIN)/python manage.py collectstatic --noinput --verbosity 0
	DEBUG=0 GUNICORN_BIND=$(HOST):$(PORT) $(BIN)/gunicorn -c ambisite/gunicorn.conf.py

worker: install
	$(BIN)/celery -A ambisite worker --loglevel=info --concurrency=1

# The suite runs in parallel: one pytest-xdist process per core (TEST_WORKERS=1: one process),
# each with its own test database, var/ folder and Celery queue (ambisite/settings.py); tests
# that must share a process carry an xdist_group mark (--dist loadgroup). The 20 slowest tests
# and the wall time are printed at the end. pytest exits 5 when it collects nothing; that is
# reported, not hidden as a crash. `make coverage` runs the same suite with the apps' line
# coverage measured (the lines run by the tests in the pytest processes) and prints the figure
# after the time: coverage's tracer made the suite 12m11s against 8m57s without it (same
# machine, 2026-11-28), so `make test`, CI's command, runs without it.
TEST_WORKERS ?= auto
PYTEST_PARALLEL := -n $(TEST_WORKERS) --dist loadgroup --durations=20
# The marks of the slow groups (pyproject.toml); `make test-fast` leaves them out.
SLOW_MARKS := browser or worker or faults or ml or property or concurrency or bench
COVERAGE_ARGS := --cov=ambisite --cov=annotations --cov=studies --cov=predictions --cov=writing \
  --cov=dashboards --cov-report=
# Runs pytest with the given arguments, prints the wall time, maps exit code 5 to 0.
define timed_pytest
	@start=$$(date +%s); $(BIN)/pytest $(PYTEST_PARALLEL) $(1) $(PYTEST_ARGS); s=$$?; \
	  t=$$(( $$(date +%s) - start )); \
	  printf '%s: %dm%02ds of test time (pytest wall clock, -n %s on %s cores)\n' \
	    "$@" $$((t / 60)) $$((t % 60)) "$(TEST_WORKERS)" "$$(nproc)"; \
	  if [ $$s -eq 5 ]; then echo "pytest collected no tests"; exit 0; fi; \
	  $(2) exit $$s
endef

test: $(VENV)/.dev $(VENV)/.ml browser compose-client
	$(call timed_pytest,,)

# The suite of `make test` with the apps' line coverage (above); the figure is this run's:
# the data of an earlier run is erased first.
coverage: $(VENV)/.dev $(VENV)/.ml browser compose-client
	@$(BIN)/coverage erase
	$(call timed_pytest,$(COVERAGE_ARGS),printf 'Coverage: %s%%\n' "$$($(BIN)/coverage report --format=total)";)

# Everything but the slow groups (above): a check while working, in parallel too.
test-fast: $(VENV)/.dev $(VENV)/.ml
	$(call timed_pytest,-m "not ($(SLOW_MARKS))",)

# ruff, the import-layer contracts (pyproject.toml, [tool.importlinter]) and mypy.
lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

migrations-check: $(VENV)/.dev
	$(BIN)/python manage.py makemigrations --check --dry-run

bench: $(VENV)/.dev $(VENV)/.ml
	$(BIN)/python bench/score.py
	$(BIN)/python bench/backends.py
	$(BIN)/python bench/dashboards.py
	$(BIN)/python bench/export_memory.py
	$(BIN)/python bench/imports.py

# AmbiSite and Potato 2.12.1 side by side under one loopback generator (bench/load/run.py; about
# 20-30 minutes on the shared 2-core machine). Needs PostgreSQL; makes its own scratch
# databases and Potato's virtualenv.
# BENCH_LOAD_ARGS="--participants 50 --tools ambisite" for a shorter run. The release burst
# (docs/performance.md "Arrival burst"): BENCH_LOAD_ARGS="--burst 500 --within 10 --clients
# script --timeout 1500" (500 arrivals evenly within 10 s, then the study walked; AmbiSite and
# Potato, which needs about 15 minutes for the walk). The five steady pairs:
# BENCH_LOAD_ARGS="--participants 200 --clients script", five times (each run prints the web
# CPU per gunicorn worker: docs/performance-log.md "The steady figure's spread").
bench-load: $(VENV)/.dev
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/ambisite} \
	  $(BIN)/python bench/load/run.py $(BENCH_LOAD_ARGS)

clean:
	rm -rf $(VENV) var
