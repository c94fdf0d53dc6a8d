# iclr26sci: every target sets itself up (scripts/setup.sh is cheap when nothing changed).
PY := .venv/bin/python
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup test test-all report report-full bench clean

setup:
	@bash scripts/setup.sh test

## make test: the fast suite (what CI runs); slow paper-scale tests are excluded
test: setup
	$(PY) -m pytest -q -n 2 -m "not slow" --durations=15

## make test-all: everything, slow tests included
test-all: setup
	$(PY) -m pytest -q -n 2 --durations=25

## make report: the quick validation profile of every method -> reports/validation/
report: setup
	$(PY) -m iclr26sci.cli validate --profile quick --out reports/validation

report-full: setup
	$(PY) -m iclr26sci.cli validate --profile full --out reports/validation-full

## make bench: side-by-side runs against peer libraries (installs the bench extra)
bench:
	@bash scripts/setup.sh test,bench
	@set -e; for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f; done

clean:
	rm -rf reports .pytest_cache .hypothesis
