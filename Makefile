# txlog developer tasks. `make test` builds the jar, then runs the Scala and Python suites.

PYTHON ?= python3.11
VENV := .venv
VENV_PY := $(VENV)/bin/python
SBT := ./build/sbt
VERSION := $(shell sed -n 's/^ThisBuild \/ version := "\(.*\)"/\1/p' build.sbt)
PY_JARS := python/txlog/jars

# The Spark lines txlog is built for, as <line>_<scala>, and the pyspark release each line is
# tested with. Keep in step with project/SparkLine.scala (tests/test_build_lines.py checks).
# The default line builds into target/scala-2.13, the others into target/spark-<line>_<scala>.
LINES := 3.5_2.12 3.5_2.13 4.0_2.13 4.1_2.13 4.2_2.13 4.3_2.13
DEFAULT_LINE := 4.2_2.13
PYSPARK_3.5 := 3.5.7
PYSPARK_4.0 := 4.0.4
PYSPARK_4.1 := 4.1.3
PYSPARK_4.2 := 4.2.0
PYSPARK_4.3 := 4.3.0
line_of = $(word 1,$(subst _, ,$(1)))
scala_of = $(word 2,$(subst _, ,$(1)))
sbt_line = -Dtxlog.spark=$(call line_of,$(1)) -Dtxlog.scala=$(call scala_of,$(1))
jar_dir = $(if $(filter $(DEFAULT_LINE),$(1)),target,target/spark-$(1))/scala-$(call scala_of,$(1))
jar_of = $(call jar_dir,$(1))/txlog-spark_$(1)-$(VERSION).jar
JAR := $(call jar_of,$(DEFAULT_LINE))

.PHONY: venv jar jars wheel wheel-check test-scala test-python test test-matrix test-compat test-s3-race test-azure test-stream-faults \
  test-lane-1 test-lane-2 test-breadth oracle-record test-python-connect \
  test-cluster test-gcs demo connect-server cds bench bench-smoke python-summaries

# Creates .venv when absent; (re)installs the pinned tools and the txlog package (editable)
# when python/pyproject.toml or this Makefile changes. pyarrow is what delta-rs hands its
# results over in (the Python tests compare through it); numpy integers are valid versions.
TEST_DEPS := deltalake==1.6.6 chispa==0.12.0 pytest pyarrow==26.0.1 numpy==2.4.6
# The Spark Connect client's modules (pyspark[connect] of the default line), for
# tests/test_sql_connect.py; other lines' venvs go without (the test skips there).
CONNECT_DEPS := grpcio==1.85.3 grpcio-status==1.85.3 googleapis-common-protos==1.76.0 \
  pandas==3.1.1 zstandard==0.25.0 protobuf==7.36.2
PY_DEPS := pyspark==$(PYSPARK_4.2) $(TEST_DEPS) $(CONNECT_DEPS)

venv: $(VENV)/.txlog-installed

$(VENV)/.txlog-installed: python/pyproject.toml Makefile
	test -x $(VENV_PY) || $(PYTHON) -m venv $(VENV)
	$(VENV_PY) -m pip install $(PY_DEPS)
	$(VENV_PY) -m pip install -e python
	touch $@

# Builds the jar of the default line and ships a copy inside the Python package
# (python/txlog/jars/), which picks the jar matching the running pyspark.
jar: jar-$(DEFAULT_LINE)

# Python's result classes, generated from the Scala results' summary shapes (PythonSummariesSuite
# fails when python/txlog/_summaries.py is stale).
python-summaries:
	$(SBT) "Test/runMain txlog.python.WritePythonSummaries" </dev/null

# `make jar-3.5_2.12`: the jar of one Spark line (Spark 4.3's jars come from its pyspark).
jar-%:
	$(SBT) $(call sbt_line,$*) package </dev/null
	mkdir -p $(PY_JARS)
	rm -f $(PY_JARS)/txlog_2.13-*.jar $(PY_JARS)/txlog-spark_$*-*.jar
	cp $(call jar_of,$*) $(PY_JARS)/

jar-4.3_2.13: venv-4.3

# Every line's jar, then the one wheel that carries them all, in dist/.
jars: $(addprefix jar-,$(LINES))

wheel: jars venv
	rm -rf python/build dist/txlog-*.whl
	$(VENV_PY) -m pip wheel --no-deps -w dist ./python

# Installs the wheel into a fresh virtualenv per Spark line, next to that line's pyspark only,
# and reads the demo table there: the wheel must pick each line's jar.
WHEEL := dist/txlog-$(VERSION)-py3-none-any.whl
WHEEL_LINES := $(sort $(foreach l,$(LINES),$(call line_of,$(l))))

wheel-check: wheel
	$(MAKE) $(addprefix wheel-check-,$(WHEEL_LINES))

wheel-check-%:
	rm -rf target/wheel-check/$*
	$(PYTHON) -m venv target/wheel-check/$*
	target/wheel-check/$*/bin/python -m pip install -q pyspark==$(PYSPARK_$*) $(WHEEL)
	cd target && wheel-check/$*/bin/python $(CURDIR)/tests/scripts/wheel_smoke.py \
	  $(CURDIR)/examples/tables/demo

# A virtualenv per Spark line, with that line's pyspark and the test tools: `make venv-3.5`.
venv-%: .venv-%/.txlog-installed ;

.PRECIOUS: .venv-%/.txlog-installed

.venv-%/.txlog-installed: python/pyproject.toml Makefile
	test -x .venv-$*/bin/python || $(PYTHON) -m venv .venv-$*
	.venv-$*/bin/python -m pip install pyspark==$(PYSPARK_$*) $(TEST_DEPS)
	.venv-$*/bin/python -m pip install -e python
	touch $@

# The venv first: some Scala suites use delta-rs (deltalake, in the venv) as an oracle. The
# suites run in TEST_FORKS JVMs side by side (project/TestGroups.scala), one by default: on 2
# cores, six suites took 248 s and 411 s of CPU in one JVM, 280 s and 550 s in two (each JVM
# compiles the same Spark code again: the JIT was half of a test JVM's CPU).
TEST_FORKS ?= 1
test-scala: venv
	$(SBT) -Dtxlog.testForks=$(TEST_FORKS) test </dev/null

# The 20 slowest tests are listed at the end, to keep the suite's time in view.
PYTEST_RUN = $(VENV_PY) -m pytest tests -q --durations=20
test-python: venv
	$(PYTEST_RUN)

# The Python API suites again on Spark Connect (TXLOG_TEST_SPARK=connect, tests/conftest.py): the
# tests start a Connect server of the jar with txlog.connect_server_settings(), and their session
# is its client; tests/test_connect_api.py and test_sql_connect.py's Connect client (on the lane's
# server: one server less to start) run only there. Tests marked classic_only (they reach
# into the JVM through py4j) are left out.
CONNECT_PYTHON := tests/test_api.py tests/test_snapshot_summary.py tests/test_changes.py tests/test_checkpoint.py \
  tests/test_checksum.py tests/test_conflict_errors.py tests/test_dml_api.py tests/test_errors.py \
  tests/test_read.py tests/test_read_errors.py tests/test_repair.py tests/test_restore.py \
  tests/test_transaction.py tests/test_vacuum.py tests/test_write.py \
  tests/test_session_time_zone.py tests/test_delta_rs_agreement.py tests/test_connect_api.py \
  tests/test_sql_connect.py
PYTEST_CONNECT_RUN = TXLOG_TEST_SPARK=connect $(VENV_PY) -m pytest $(CONNECT_PYTHON) -q \
  --durations=20
test-python-connect: jar venv
	$(PYTEST_CONNECT_RUN)

# `make test`: two lanes side by side, the Scala suites in one, the Python suite, then the
# Spark 3.5 run of test-compat, then a second Scala JVM in the other. The two Scala JVMs share one
# queue of suites (project/TestGroups.scala, txlog.testing.Claimed): the first takes them from the
# front, longest first; the second, from the back once the Python and Spark 3.5 runs have ended,
# until they meet, so both lanes end together however long the Python lane took. Each part's
# lines are prefixed with its name ([scala], [pytest], [spark-3.5], [scala-tail]) and kept in
# target/test-logs/. Much of every suite's time is spent waiting on small Spark jobs, so on a
# 2-core machine they finish sooner together than one after the other.
# At the end, each part's time and the 20 slowest tests of each runner (build/test_summary.py).
# Either lane failing fails `make test`, once both have ended.
TEST_LOGS := target/test-logs
# The lanes' claims on suites, fresh for each `make test`: a lane run on its own (no CLAIMS)
# runs every suite.
CLAIMS ?=
CLAIMS_OPT = $(if $(CLAIMS),-Dtxlog.testClaims=$(CLAIMS))
# The jar and the virtualenv are made side by side (an sbt build and a pip install), then the lanes.
test:
	$(MAKE) --no-print-directory -j2 jar venv
	rm -rf $(TEST_LOGS)
	status=0; $(MAKE) --no-print-directory -j2 -k CLAIMS=$(CURDIR)/$(TEST_LOGS)/claims \
	  test-lane-1 test-lane-2 || status=$$?; \
	  $(PYTHON) build/test_summary.py $(TEST_LOGS); exit $$status

test-lane-1: venv
	build/lane scala '$(SBT) -Dtxlog.testForks=$(TEST_FORKS) -Dtxlog.testPart=main $(CLAIMS_OPT) \
	  test </dev/null'

test-lane-2: venv
	status=0; build/lane pytest '$(PYTEST_RUN)' || status=$$?; \
	  build/lane pytest-connect '$(PYTEST_CONNECT_RUN)' || status=$$?; \
	  build/lane spark-3.5 '$(COMPAT_RUN)' || status=$$?; \
	  build/lane scala-tail '$(SBT) -Dtxlog.testPart=tail $(CLAIMS_OPT) test </dev/null' \
	  || status=$$?; exit $$status

# delta-spark's and delta-rs's answers on the read-only fixtures, recorded into
# src/test/resources/oracle/delta-spark-<version>.jsonl (snapshots) and
# delta-spark-<version>-rows.jsonl (the tables' rows at every version) (for each delta-spark `make test` reads:
# the default line's and Spark 3.5's) and tests/oracle/delta-rs-<version>.json, stamped with the
# oracle's version and the fixtures' digests. Tests compare with the recording, re-run a sample
# live, and fail naming what differs when the fixtures or the oracle are not those recorded: then
# run this again.
oracle-record: venv
	$(SBT) "Test/runMain txlog.oracle.RecordOracles $(CURDIR)" \
	  "Test/runMain txlog.oracle.RecordRows $(CURDIR)" </dev/null
	$(SBT) $(call sbt_line,3.5_2.12) "Test/runMain txlog.oracle.RecordOracles $(CURDIR)" \
	  "Test/runMain txlog.oracle.RecordRows $(CURDIR)" </dev/null
	$(VENV_PY) tests/record_delta_rs.py

# Every other Spark line: its jar, then its agreement suites against its own oracle (delta-spark
# of that line; Spark 4.3 has none, so there every suite that compiles without delta-spark
# runs, the delta-rs ones among them) and the Python API suites under its own pyspark (3.5 with
# Scala 2.13 has no pyspark on PyPI: its Scala suites are its check). `make test-line-3.5_2.12`
# runs one line.
MATRIX_SCALA := txlog.BuildInfoSuite txlog.FixtureAgreementSuite txlog.TimeTravelAgreementSuite \
  txlog.scan.RowAgreementSuite txlog.scan.ScanSuite txlog.scan.RowTrackingReadSuite \
  txlog.scan.CheckpointStatsSuite txlog.changes.ChangeSchemaSuite \
  txlog.changes.ChangesSuite txlog.write.DataWriteSuite txlog.write.WriteRulesSuite \
  txlog.write.OptimizeSuite \
  txlog.timetravel.CommitTimelineSuite txlog.checkpoint.CheckpointRoundTripSuite \
  txlog.checkpoint.CheckpointRoundTripSuite2 \
  txlog.txn.TransactionSuite txlog.txn.InteropMatrixSuite txlog.txn.DeltaRsTablesSuite \
  txlog.storage.S3ObjectStoreSuite txlog.storage.S3TablesSuite \
  txlog.storage.S3FaultsSuite txlog.storage.S3ConditionalPutSuite txlog.storage.S3OwnClientSuite \
  txlog.storage.S3LeanGetSuite \
  txlog.sql.SqlStatementsSuite txlog.sql.SqlParitySuite txlog.sql.SqlAlterParitySuite \
  txlog.sql.SqlCommandsParitySuite txlog.sql.RowLevelParitySuite txlog.sql.MergeParitySuite
MATRIX_PYTHON := tests/test_jar.py tests/test_api.py tests/test_transaction.py \
  tests/test_checkpoint.py tests/test_delta_rs_agreement.py tests/test_interop_delta_rs.py \
  tests/test_read.py tests/test_changes.py tests/test_write.py tests/test_local_rows.py
MATRIX_LINES := $(filter-out $(DEFAULT_LINE),$(LINES))
# The lines whose matrix run also runs the Python API suites on Spark Connect, with the Connect
# client's modules (pandas 2 for pyspark 3.5, which pandas 3 breaks).
CONNECT_LINES := 3.5_2.12 4.0_2.13
CONNECT_DEPS_3.5 := $(filter-out pandas==%,$(CONNECT_DEPS)) pandas==2.3.3
CONNECT_DEPS_4.0 := $(CONNECT_DEPS)

# What `make test` (and so CI) runs beyond the default line, as the whole matrix does not fit
# CI's time: Spark 3.5 with
# Scala 2.12 (EMR 7, Databricks 16.4) compiled, and its fixture, time-travel and row agreement
# with delta-spark 3.3 (rows through Spark 3.5's own parquet reader: the fixtures' deletion
# vectors and column mapping among them; the tables ScanSuite and RowTrackingReadSuite write at
# test time run in `make test-matrix`), on a quarter of the fixtures, which quarter rotating by
# day (-Dtxlog.fixtureShare, txlog.testing.Breadth.fixtures); `make test-line-3.5_2.12` checks all.
COMPAT_SCALA := txlog.BuildInfoSuite txlog.FixtureAgreementSuite txlog.TimeTravelAgreementSuite \
  txlog.scan.RowAgreementSuite

# Only these suites' test sources (and what they use) are compiled: project/TestSources.scala.
comma := ,
empty :=
space := $(empty) $(empty)
COMPAT_SUITES := $(subst $(space),$(comma),$(notdir $(subst .,/,$(COMPAT_SCALA))))
COMPAT_RUN = $(SBT) $(call sbt_line,3.5_2.12) -Dtxlog.testSuites=$(COMPAT_SUITES) \
  -Dtxlog.fixtureShare=4 "testOnly $(COMPAT_SCALA)" </dev/null
test-compat:
	$(COMPAT_RUN)

test-matrix: test-breadth test-stream-faults $(addprefix test-line-,$(MATRIX_LINES))

# Exactly once under faults (tests/test_stream_faults.py): a txlog stream killed with SIGKILL
# every 20-40 s and restarted for 5 minutes while delta-spark appends to its source and OPTIMIZEs
# it; skipped in `make test` (about 6 minutes).
test-stream-faults: jar venv
	TXLOG_STREAM_FAULTS_SECONDS=300 $(VENV_PY) -m pytest tests/test_stream_faults.py -q -s

# The breadth suites (src/test/scala/txlog/testing/Breadth.scala) with every item, and the suites
# whose heaviest tests take turns (txlog.testing.InTurn) with every test, on the default line:
# `make test` runs a share of each, rotating by day. test-matrix's lines run every item too.
BREADTH_SCALA := txlog.DistributedReplayAgreementSuite txlog.FixtureAgreementSuite \
  txlog.changes.ChangesSuite txlog.checkpoint.CheckpointRoundTripSuite \
  txlog.checkpoint.CheckpointRoundTripSuite2 txlog.checkpoint.CheckpointWriterSuite \
  txlog.checkpoint.DriverCheckpointFileSuite \
  txlog.checksum.VersionChecksumSuite txlog.cleanup.CleanupFailClosedSuite txlog.cli.CliSuite \
  txlog.compaction.DistributedLogCompactionSuite txlog.compaction.LogCompactionSuite \
  txlog.inspect.ValidateSuite txlog.repair.RepairFaultsSuite txlog.repair.RepairSuite \
  txlog.replay.DriverBudgetSuite txlog.restore.RestoreAgreementSuite \
  txlog.restore.RestoreFixturesSuite txlog.scan.CheckpointStatsSuite txlog.scan.RowAgreementSuite \
  txlog.scan.RowTrackingReadSuite txlog.sql.DmlApiParitySuite txlog.sql.DmlRaceSuite \
  txlog.sql.DmlRandomParitySuite txlog.sql.GeneratedDmlParitySuite txlog.sql.IdentityColumnsSuite \
  txlog.sql.MergeParitySuite txlog.sql.RowLevelParitySuite txlog.sql.SqlAlterParitySuite \
  txlog.sql.SqlCommandsParitySuite txlog.sql.SqlParitySuite txlog.storage.S3TablesSuite \
  txlog.streaming.StreamSourceParitySuite txlog.timetravel.CommitTimelineSuite \
  txlog.txn.InteropMatrixSuite txlog.txn.ProcessWritersSuite txlog.vacuum.VacuumAgreementSuite \
  txlog.vacuum.VacuumFixturesSuite txlog.vacuum.VacuumSafetySuite txlog.write.DataWriteSuite \
  txlog.write.OptimizeSuite txlog.write.RowDeleteSuite txlog.write.SchemaEvolutionSuite
test-breadth: jar venv
	$(SBT) -Dtxlog.breadth=full -Dtxlog.testForks=$(TEST_FORKS) "testOnly $(BREADTH_SCALA)" </dev/null
	TXLOG_CLUSTER_FIXTURES=all $(VENV_PY) -m pytest tests/test_cluster.py -q
	TXLOG_CONNECT_FIXTURES=all TXLOG_TEST_SPARK=connect $(VENV_PY) -m pytest \
	  tests/test_checkpoint.py tests/test_delta_rs_agreement.py -q

test-line-%: venv
	$(MAKE) jar-$*
	$(SBT) $(call sbt_line,$*) -Dtxlog.breadth=full \
	  $(if $(filter 4.3_%,$*),test,"testOnly $(MATRIX_SCALA)") </dev/null
	$(if $(filter 3.5_2.13,$*),,$(MAKE) venv-$(call line_of,$*) && \
	  .venv-$(call line_of,$*)/bin/python -m pytest $(MATRIX_PYTHON) -q)
	$(if $(filter $(CONNECT_LINES),$*),.venv-$(call line_of,$*)/bin/python -m pip install \
	  $(CONNECT_DEPS_$(call line_of,$*)) && TXLOG_TEST_SPARK=connect \
	  .venv-$(call line_of,$*)/bin/python -m pytest $(CONNECT_PYTHON) -q)

# Google Cloud Storage through the GCS connector itself, against a local fake-gcs-server built
# from the Go module proxy into target/tools (the connector's shaded jar is fetched there with
# Maven), on demand: tests/test_gcs_emulator.py, skipped elsewhere.
GCS_SERVER := github.com/fsouza/fake-gcs-server@v1.56.1
GCS_CONNECTOR_VERSION := hadoop3-2.2.26
GCS_TOOLS := $(CURDIR)/target/tools
test-gcs: jar venv
	GOBIN=$(GCS_TOOLS) go install $(GCS_SERVER)
	mvn -q dependency:copy -DoutputDirectory=$(GCS_TOOLS) \
	  -Dartifact=com.google.cloud.bigdataoss:gcs-connector:$(GCS_CONNECTOR_VERSION):jar:shaded
	TXLOG_FAKE_GCS_SERVER=$(GCS_TOOLS)/fake-gcs-server \
	  TXLOG_GCS_CONNECTOR_JAR=$(GCS_TOOLS)/gcs-connector-$(GCS_CONNECTOR_VERSION)-shaded.jar \
	  $(VENV_PY) -m pytest tests/test_gcs_emulator.py -q

# Azure Blob Storage through hadoop-azure's own wasb:// client against a local Azurite from npm,
# on demand: tests/test_azurite.py, skipped elsewhere. hadoop-azure 3.4.2 (Spark 4.1's Hadoop)
# with the libraries it needs: 3.5.0 removed the wasb:// client (ABFS serves accounts without a
# hierarchical namespace there).
AZURITE_VERSION := 3.37.0
AZURE_TOOLS := $(CURDIR)/target/tools/azure
AZURE_JARS := org.apache.hadoop:hadoop-azure:3.4.2 com.microsoft.azure:azure-storage:7.0.1 \
  com.microsoft.azure:azure-keyvault-core:1.0.0 org.eclipse.jetty:jetty-util-ajax:9.4.58.v20250814 \
  org.eclipse.jetty:jetty-util:9.4.58.v20250814
test-azure: jar venv
	npm install --silent --prefix $(AZURE_TOOLS) azurite@$(AZURITE_VERSION)
	rm -rf $(AZURE_TOOLS)/jars
	$(foreach a,$(AZURE_JARS),mvn -q dependency:copy -DoutputDirectory=$(AZURE_TOOLS)/jars \
	  -Dartifact=$(a) &&) true
	TXLOG_AZURITE=$(AZURE_TOOLS)/node_modules/.bin/azurite-blob \
	  TXLOG_AZURE_JARS=$$(ls $(AZURE_TOOLS)/jars/*.jar | paste -sd, -) \
	  $(VENV_PY) -m pytest tests/test_azurite.py -q

# S3 writers as processes, on demand: four txlog writer JVMs and a delta-rs writer race on one
# table on a local S3Proxy (S3ProcessRaceSuite), S3_RACE commits each, on Spark 4.0 (S3A without a
# conditional create: the SDK v2 PUT), 3.5 (the SDK v1 PUT) and the default line (S3A's own).
S3_RACE ?= 25
test-s3-race: venv
	$(foreach l,4.0_2.13 3.5_2.12 $(DEFAULT_LINE),$(SBT) $(call sbt_line,$(l)) \
	  -Dtxlog.s3ProcessRace=$(S3_RACE) "testOnly txlog.storage.S3ProcessRaceSuite" </dev/null &&) true

# txlog on a Spark standalone cluster (a master and two workers on 127.0.0.1) against local
# mode: every fixture table of tests/test_cluster.py and the W1 table (1M files). `make test`
# runs only its default part (two fixture tables).
test-cluster: jar venv
	TXLOG_CLUSTER_FIXTURES=all TXLOG_CLUSTER_W1=1 $(VENV_PY) -m pytest tests/test_cluster.py -q -s

# Replays the demo table in examples/tables/demo through PySpark: snapshot summary, history
# and a time-travelled version.
# A Spark Connect server on this machine with txlog's settings (txlog.connect_server_settings()),
# in the foreground until interrupted: `SPARK_REMOTE=sc://localhost:15002 make demo` then runs
# the demo from a Connect session of it.
CONNECT_PORT ?= 15002
connect-server: jar venv
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/spark-submit \
	  --class org.apache.spark.sql.connect.service.SparkConnectServer \
	  --conf spark.connect.grpc.binding.port=$(CONNECT_PORT) \
	  $$($(VENV_PY) -m txlog connect-server-settings) spark-internal

demo: jar venv
	$(VENV_PY) examples/demo.py

# An opt-in class data sharing archive for the driver JVM (docs/platforms.md, "Cold start").
CDS_ARCHIVE := target/cds/txlog-spark_$(DEFAULT_LINE).jsa
cds: jar venv
	$(VENV_PY) examples/cds_archive.py $(CDS_ARCHIVE)

# Benchmarks against delta-spark and delta-rs (bench/README.md); results in bench/RESULTS.md.
BENCH_DEPS := matplotlib numpy pyarrow

# `cds` first: engine txlog-cds times txlog with the archive (bench/README.md).
bench: jar venv cds
	$(VENV_PY) -m pip install -q $(BENCH_DEPS)
	$(VENV_PY) bench/run.py

bench-smoke: jar venv cds
	$(VENV_PY) -m pip install -q $(BENCH_DEPS)
	$(VENV_PY) bench/run.py --smoke
