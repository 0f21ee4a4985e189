PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean wire

# Reinstalled when an install file changes (dependencies in pyproject.toml, the build step in setup.py).
$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP) web_client/dist
	$(BIN)/guobiao serve $(SERVE_ARGS)  # e.g. make run SERVE_ARGS='--port 9000 --db var/other.db'

# The browser client (web_client/): `npm ci` when the lock file changes, `npm run build` when dist/ is
# missing or older than a source. The server serves web_client/dist/ on its own port.
CLIENT_SOURCES := $(shell find web_client/src -type f 2>/dev/null) $(wildcard web_client/index.html \
	web_client/package.json web_client/vite.config.ts web_client/tsconfig.json)

web_client/node_modules/.installed: web_client/package-lock.json
	@command -v npm >/dev/null || { echo "The browser client needs Node.js 20.19+ and npm (nodejs.org or your distribution)"; exit 1; }
	cd web_client && npm ci --no-audit --no-fund
	touch $@

web_client/dist: web_client/node_modules/.installed $(CLIENT_SOURCES)
	cd web_client && npm run build
	touch $@

# The client's wire types (web_client/src/wire.gen.ts) from server/wire*.py and server/schema.py; run it
# after changing a message or a command (tests/server/test_wire.py fails while the file is stale).
wire: $(STAMP)
	$(BIN)/python -m server.wire_ts > web_client/src/wire.gen.ts.tmp
	mv web_client/src/wire.gen.ts.tmp web_client/src/wire.gen.ts

test: $(STAMP)
	$(BIN)/python -m pytest

# The engine and bot benchmarks, the server's CPU per action and a short load run against the baseline
# (docs/performance.md: what each prints and how long the whole takes). bench/soak.py and the full-size
# bench/load.py runs are longer: their commands are in docs/performance.md.
bench: $(STAMP)
	$(BIN)/python bench/fans.py
	$(BIN)/python bench/differential.py --hands 1000000
	$(BIN)/python bench/shanten.py
	$(BIN)/python bench/selfplay.py
	$(BIN)/python bench/bots.py --hands 1000
	$(BIN)/python bench/room_cpu.py
	$(BIN)/python bench/load.py --tables 200 --closed --duration 10 --warmup 3 --baseline

clean:
	rm -rf $(VENV) build *.egg-info
