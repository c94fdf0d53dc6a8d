# iclr26sci: every target sets itself up (scripts/setup.sh is cheap when nothing changed).
PY := .venv/bin/python
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
# doctests and checks draw figures off-screen
export MPLBACKEND := Agg
# MuJoCo renders headless (the set-up installs libosmesa6); set before any test imports mujoco
export MUJOCO_GL ?= osmesa

# the library's docstring examples run as doctests; floats match to the digits written in the example
DOCTEST := --doctest-modules -o doctest_optionflags="ELLIPSIS NORMALIZE_WHITESPACE NUMBER"
REPORT := reports/validation
SEEDS ?= 0-4

.PHONY: setup test test-all doctest report report-full report-seeds report-screenshot bench dist clean

setup:
	@bash scripts/setup.sh all,test

## make test: the fast suite and the library's doctests (what CI runs); slow paper-scale tests are excluded
test: setup
	$(PY) -m pytest -q -n 2 -m "not slow" --durations=15 $(DOCTEST) tests iclr26sci

## make test-all: everything, slow tests included
test-all: setup
	$(PY) -m pytest -q -n 2 --durations=25 $(DOCTEST) tests iclr26sci

## make doctest: only the docstring examples of the library
doctest: setup
	$(PY) -m pytest -q -n 2 $(DOCTEST) iclr26sci

## make report: the quick validation profile (ordinary checks) and the claims profile (each paper's headline
## claims with their positive controls) of every method, in one run -> reports/validation/ (one index.html,
## one results.json); then the README's validation summary and claims table are rewritten from its
## results.json. Fails when validate fails (known failures aside) or when the README lacks the markers.
report: setup
	@rm -f $(REPORT)/results.json; rc=0; \
	$(PY) -m iclr26sci.cli validate --profile quick,claims --out $(REPORT) || rc=$$?; \
	if [ -f $(REPORT)/results.json ]; then \
	    $(PY) scripts/readme_summary.py --results $(REPORT)/results.json --readme README.md || exit $$?; \
	fi; \
	if [ $$rc -ne 0 ]; then echo "make report: validate failed (exit $$rc); see $(REPORT)/index.html" >&2; fi; \
	exit $$rc

## make report-full: the paper-scale run: every check, [slow] ones and claims included, at the full size
## (many hours on 2 cores). It resumes: checks already finished in reports/validation-full/checkpoint.jsonl with
## the same code (the files each check imports), seed and threads are reported from there, so an interrupted run
## goes on where it stopped
## (rm -r reports/validation-full to start from nothing)
report-full: setup
	$(PY) -m iclr26sci.cli validate --profile full --resume --out reports/validation-full

## make report-seeds: the quick profile under master seeds $(SEEDS): verdict per check and seed
report-seeds: setup
	$(PY) -m iclr26sci.cli validate --profile quick --seeds $(SEEDS) --out reports/validation-seeds

## make report-screenshot: render reports/validation/index.html in headless Chromium (not in CI)
report-screenshot:
	bash scripts/report_screenshot.sh $(REPORT) reports/screenshots

## make bench: side-by-side runs against peer libraries (installs the bench extra)
bench:
	@bash scripts/setup.sh all,test,bench
	@set -e; for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f; done

## make dist: the wheel and the sdist into dist/ (python -m build when the venv has it, else pip wheel and
## setuptools' own sdist builder; both with the venv's setuptools, no download)
dist: setup
	@rm -rf dist build
	@if $(PY) -c "import build.__main__" 2>/dev/null; then \
	    $(PY) -m build --no-isolation --outdir dist . ; \
	else \
	    $(PY) -m pip wheel -q --no-deps --no-build-isolation --wheel-dir dist . && \
	    $(PY) -c "import setuptools.build_meta as b; print(b.build_sdist('dist'))" >/dev/null ; \
	fi
	@rm -rf build
	@ls -l dist

clean:
	rm -rf reports .pytest_cache .hypothesis
