# Two commands get a new user going: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXAMPLE ?= examples/dgx-h100-superpod-1su.json

.PHONY: run test tests test-slow lint docs bench package clean

# Python keeps the bytecode it compiles (in the git-ignored __pycache__ folders), even where the
# environment says not to: the tests start hundreds of Python processes (the command line, the
# guide's screenshots, pytest's workers), and each would compile designer/ and the tests again.
unexport PYTHONDONTWRITEBYTECODE

# --no-compile: pip would compile every module it installs (about 20 s of CPU here, most of it
# code never imported: pygments' lexers, the libraries' own tests); Python compiles what is
# imported, once, on its first import.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --no-compile --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/fabric-designer gui $(EXAMPLE)

# The checks, the guide and the tests side by side, so that no core waits: mypy uses one core
# and the guide's screenshots finish early, while the tests run on every core (pytest-xdist; a
# file whose tests share a tally keeps them on one worker: --dist loadgroup). `make test` fails
# when any of the three does. Each check prints its output whole when it ends (--output-sync);
# the tests' line starts with `+`, which shows their progress as they run (and runs it under
# `make -n` too).
test: $(STAMP)
	$(MAKE) --no-print-directory -j3 --output-sync=line lint docs tests

tests: $(STAMP)
	+QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -n auto --dist loadgroup

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
