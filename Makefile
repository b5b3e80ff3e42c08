# Two entry points (README): `make demo` and `make test`. Both build .venv from scratch.
# torch==2.13.0 (test-only oracle) installs the CPU wheel that pip finds on this kind of machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test bench clean

$(VENV)/.base: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.test: $(VENV)/.base
	$(PY) -m pip install -q -e '.[test]'
	# tests/viz render with Graphviz's dot and open a page in headless Chromium (Debian, root)
	command -v dot >/dev/null && test -x /usr/bin/chromium || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz chromium)
	touch $@

$(VENV)/.demo: $(VENV)/.base
	$(PY) -m pip install -q -e '.[demo]'
	touch $@

demo: $(VENV)/.demo
	$(PY) examples/demo.py

test: $(VENV)/.test
	$(PY) -m pytest tests

bench: $(VENV)/.test
	$(PY) -m bench

clean:
	rm -rf $(VENV) *.egg-info
