# Two commands get a new user going: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXAMPLE ?= examples/dgx-h100-superpod-1su.json

.PHONY: run test test-slow lint docs bench package clean

# Python keeps the bytecode it compiles (in the git-ignored __pycache__ folders), even where the
# environment says not to: the tests start hundreds of Python processes (the command line, the
# guide's screenshots, pytest's workers), and each would compile designer/ and the tests again.
unexport PYTHONDONTWRITEBYTECODE

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/fabric-designer gui $(EXAMPLE)

# The checks and the guide side by side (mypy uses one core), then the tests on every core
# (pytest-xdist; a file whose tests share a tally keeps them on one worker: --dist loadgroup).
test: $(STAMP)
	$(MAKE) --no-print-directory -j2 lint docs
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -n auto --dist loadgroup

# The code's checks: ruff's rules, the architecture's import contracts and the type checker
# (pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check designer tests benchmarks packaging docs
	$(BIN)/lint-imports
	$(BIN)/mypy

# The user guide, built strictly: a broken link, a missing page or a failed screenshot fails.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --quiet

# What `make test` leaves out: the tests marked slow (each names the faster test that covers its
# behaviour in `make test`), and every property again at its full example count (the thorough
# hypothesis profile; `make test` runs 40% of it, tests/conftest.py).
test-slow: $(STAMP)
	HYPOTHESIS_PROFILE=thorough QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -n auto --dist loadgroup \
		-m 'slow or hypothesis'

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

package: $(STAMP)
	bash packaging/build-linux.sh

clean:
	rm -rf $(VENV) build dist *.egg-info
