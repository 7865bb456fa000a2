# arpad — the two quick-start commands are `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CHROMIUM     ?= /usr/bin/chromium
CHROMEDRIVER ?= /usr/bin/chromedriver

# Prefect: project-local home, no analytics (a fresh home can otherwise fail
# with "database is locked").
export PREFECT_HOME ?= $(CURDIR)/.prefect
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_LOGGING_LEVEL ?= WARNING

.PHONY: demo test lint format bench clean aot

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	touch $@

# The rating kernels compiled ahead of time (kernels/aot.py; a no-op when current, and
# a note, not a failure, when it cannot build: the JIT then compiles them).
aot: $(BIN)/.installed
	@$(BIN)/python -m arpad.pipeline.aot

demo: aot
	$(BIN)/arpad demo

test: aot
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@# Browser tests (marker browser) need Debian's chromium and chromium-driver (docs/site.md).
	@if [ -x $(CHROMIUM) ] && [ -x $(CHROMEDRIVER) ]; then \
		$(BIN)/python -m pytest; \
	else \
		echo "note: browser tests deselected: $(CHROMIUM) or $(CHROMEDRIVER) missing (apt-get install chromium chromium-driver)"; \
		$(BIN)/python -m pytest -m "not slow and not browser"; \
	fi
	@echo "== the suite again with NUMBA_DISABLE_JIT=1 (kernel bodies as plain Python; Prefect tests ran above) =="
	NUMBA_DISABLE_JIT=1 $(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow and not prefect and not once and not browser"

lint:
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: aot
	$(BIN)/python benchmarks/bench_rate.py

clean:
	rm -rf $(VENV) .prefect arpad-store arpad-demo .pytest_cache kernels/_aot
