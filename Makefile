PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	@if $(BIN)/guobiao serve --help >/dev/null 2>&1; then $(BIN)/guobiao serve; else \
	  echo "The websocket server is not built yet; the command-line tools are installed:"; \
	  $(BIN)/guobiao --help; fi

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/fans.py
	$(BIN)/python bench/differential.py --hands 1000000
	$(BIN)/python bench/shanten.py
	$(BIN)/python bench/selfplay.py

clean:
	rm -rf $(VENV) build *.egg-info
