# Every target uses the project's own virtual environment in .venv/.
VENV := .venv
PY := $(VENV)/bin/python
BOOTSTRAP_PYTHON ?= python3

# The schema files live beside the project (../shared/schema) when that folder exists;
# elsewhere mcpgen uses its cache or downloads the pinned, sha256-checked files.
ifneq ($(wildcard ../shared/schema),)
export MCPGEN_SCHEMA_DIR ?= $(abspath ../shared/schema)
endif

.PHONY: install generate test check bench demo clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(BOOTSTRAP_PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

generate: install
	$(VENV)/bin/mcpgen --revision all -o generated

test: install
	$(PY) -m pytest

check: install
	$(VENV)/bin/ruff check codegen runtime tests bench examples generated
	$(VENV)/bin/mypy codegen runtime
	$(VENV)/bin/mypy generated

bench: install
	$(PY) bench/bench_codegen.py
	$(PY) bench/bench_stdio.py

demo: install generate
	$(PY) examples/demo_client.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
