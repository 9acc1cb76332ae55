# txlog developer tasks. `make test` builds the jar, then runs the Scala and Python suites.

PYTHON ?= python3.11
VENV := .venv
VENV_PY := $(VENV)/bin/python
SBT := ./build/sbt
VERSION := $(shell sed -n 's/^ThisBuild \/ version := "\(.*\)"/\1/p' build.sbt)
JAR := target/scala-2.13/txlog_2.13-$(VERSION).jar
PY_JARS := python/txlog/jars

.PHONY: venv jar test-scala test-python test test-cluster demo bench bench-smoke

# Creates .venv when absent; (re)installs the pinned tools and the txlog package (editable)
# when python/pyproject.toml or this Makefile changes. pyarrow is what delta-rs hands its
# results over in (the Python tests compare through it); numpy integers are valid versions.
PY_DEPS := pyspark==4.2.0 deltalake==1.6.6 chispa==0.12.0 pytest pyarrow==26.0.1 numpy==2.4.6

venv: $(VENV)/.txlog-installed

$(VENV)/.txlog-installed: python/pyproject.toml Makefile
	test -x $(VENV_PY) || $(PYTHON) -m venv $(VENV)
	$(VENV_PY) -m pip install $(PY_DEPS)
	$(VENV_PY) -m pip install -e python
	touch $@

# Builds the jar and ships a copy inside the Python package (python/txlog/jars/).
jar:
	$(SBT) package </dev/null
	mkdir -p $(PY_JARS)
	rm -f $(PY_JARS)/txlog_2.13-*.jar
	cp $(JAR) $(PY_JARS)/

# The venv first: some Scala suites use delta-rs (deltalake, in the venv) as an oracle.
test-scala: venv
	$(SBT) test </dev/null

test-python: venv
	$(VENV_PY) -m pytest tests -q

test: jar test-scala test-python

# txlog on a Spark standalone cluster (a master and two workers on 127.0.0.1) against local
# mode: every fixture table of tests/test_cluster.py and the W1 table (1M files). `make test`
# runs only its default part (two fixture tables).
test-cluster: jar venv
	TXLOG_CLUSTER_FIXTURES=all TXLOG_CLUSTER_W1=1 $(VENV_PY) -m pytest tests/test_cluster.py -q -s

# Replays the demo table in examples/tables/demo through PySpark: snapshot summary, history
# and a time-travelled version.
demo: jar venv
	$(VENV_PY) examples/demo.py

# Benchmarks against delta-spark and delta-rs (bench/README.md); results in bench/RESULTS.md.
BENCH_DEPS := matplotlib numpy pyarrow

bench: jar venv
	$(VENV_PY) -m pip install -q $(BENCH_DEPS)
	$(VENV_PY) bench/run.py

bench-smoke: jar venv
	$(VENV_PY) -m pip install -q $(BENCH_DEPS)
	$(VENV_PY) bench/run.py --smoke
