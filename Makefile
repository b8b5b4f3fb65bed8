# Every target uses the project's own virtual environment in .venv/.
VENV := .venv
PY := $(VENV)/bin/python
BOOTSTRAP_PYTHON ?= python3

# The schema files live beside the project (../shared/schema) when that folder exists;
# elsewhere mcpgen uses its cache or downloads the pinned, sha256-checked files.
ifneq ($(wildcard ../shared/schema),)
export MCPGEN_SCHEMA_DIR ?= $(abspath ../shared/schema)
endif

.PHONY: install node-tools topology-tools generate test check bench demo clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml constraints.txt
	$(BOOTSTRAP_PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[test]'
	touch $@

# Node tools of the tests (the official MCP conformance harness, pyright), with their own
# Node 22 from the npm package `node`, pinned by tests/node/package-lock.json and installed
# into an ignored folder.
NODE_BIN := tests/node/node_modules/.bin
NODE_TOOLS := tests/node/node_modules/.installed
node-tools: $(NODE_TOOLS)

$(NODE_TOOLS): tests/node/package.json tests/node/package-lock.json
	cd tests/node && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# redis-server and haproxy for the multi-worker tests (tests/transports/http/test_topology.py), from Debian's
# packages: apt-get as root, else unpacked into the ignored tests/.tools; versions checked
# (Redis >= 7.0, HAProxy >= 2.6). The tests install them the same way when they are missing.
topology-tools: install
	$(PY) tests/support/topology_support.py

generate: install
	$(VENV)/bin/mcpgen --revision all -o generated

test: install node-tools topology-tools
	$(PY) -m pytest

check: install node-tools
	$(VENV)/bin/ruff check codegen runtime tests bench examples generated
	$(VENV)/bin/mypy codegen runtime
	$(VENV)/bin/mypy generated
	$(NODE_BIN)/pyright

bench: install topology-tools
	$(PY) bench/bench_codegen.py
	$(PY) bench/bench_decode.py
	$(PY) bench/bench_tolerant.py
	$(PY) bench/bench_convert.py
	$(PY) bench/bench_stdio.py
	$(PY) bench/bench_http_server.py
	$(PY) bench/bench_http.py
	$(PY) bench/bench_app.py
	$(PY) bench/bench_topology.py

demo: install generate
	$(PY) examples/demo_client.py
	$(PY) examples/demo_era_client.py

clean:
	rm -rf $(VENV) tests/node/node_modules .mypy_cache .ruff_cache .pytest_cache .hypothesis
