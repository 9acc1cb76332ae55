"""Locating the jar, checking its version, and configure_spark (no Spark session needed)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from pyspark import SparkConf
from pyspark.sql import SparkSession

import txlog
from txlog import _jar
from txlog.errors import (
    JarNotFoundError,
    JarSparkMismatchError,
    JarVersionMismatchError,
    TxlogError,
    UnsupportedSparkVersionError,
)

# The Spark line and Scala version of the pyspark these tests run under.
LINE = _jar.spark_line()
SCALA = _jar.scala_binary(LINE)


def fake_jar(path: Path, version: str | None, line: str = LINE, scala: str = SCALA) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        if version is not None:
            zf.writestr(_jar.VERSION_ENTRY, f"version={version}\nspark.version={line}.0\n"
                        f"spark.line={line}\nscala.binary={scala}\n")
    return path


def test_version_constant() -> None:
    assert txlog.__version__ == "0.1.0"
    assert _jar.jar_name() == "txlog-spark_4.2_2.13-0.1.0.jar"
    assert _jar.jar_name(line="3.5", scala="2.12") == "txlog-spark_3.5_2.12-0.1.0.jar"


def test_spark_line_of_supported_and_unsupported_versions() -> None:
    assert _jar.spark_line("3.5.2") == "3.5"
    assert _jar.spark_line("4.0.0.dev1") == "4.0"
    assert _jar.spark_line("4.3.0") == "4.3"
    for bad in ("3.4.1", "4.4.0", "2.4.8", "nonsense"):
        with pytest.raises(UnsupportedSparkVersionError) as info:
            _jar.spark_line(bad)
        msg = str(info.value)
        assert bad in msg and "Spark 3.5 (Scala 2.12 and 2.13)" in msg and "Spark 4.3" in msg
        assert info.value.error_class == "UNSUPPORTED_SPARK_VERSION"


def test_unsupported_pyspark_fails_configure_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyspark

    monkeypatch.delenv("TXLOG_JAR", raising=False)
    monkeypatch.setattr(pyspark, "__version__", "3.4.4")
    builder = SparkSession.builder
    with pytest.raises(UnsupportedSparkVersionError, match="3.4.4"):
        txlog.configure_spark(builder)
    assert "spark.jars" not in builder._options


def test_scala_version_from_the_spark_installation(tmp_path: Path) -> None:
    jars = tmp_path / "jars"
    jars.mkdir()
    (jars / "spark-core_2.13-3.5.7.jar").touch()
    (jars / "scala-library-2.13.8.jar").touch()
    assert _jar.scala_binary("3.5", [tmp_path / "missing", jars]) == "2.13"
    (jars / "scala-library-2.13.8.jar").unlink()
    (jars / "scala-library-2.12.18.jar").touch()
    assert _jar.scala_binary("3.5", [jars]) == "2.12"
    # No scala-library jar: the line's first Scala version (pyspark 3.5 on PyPI is 2.12).
    assert _jar.scala_binary("3.5", [tmp_path / "missing"]) == "2.12"
    assert _jar.scala_binary("4.1", []) == "2.13"


def test_the_running_pysparks_scala_version() -> None:
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    libs = sorted(p.name for p in jars.glob("scala-library-*.jar"))
    assert libs, f"pyspark at {jars} carries no scala-library jar"
    assert SCALA == libs[0].split("-")[2][:4]


def test_jar_of_the_packaged_line_is_chosen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TXLOG_JAR", raising=False)
    pkg = tmp_path / "site" / "txlog"
    jars = {
        (line, scala): fake_jar(pkg / "jars" / _jar.jar_name("0.1.0", line, scala), "0.1.0",
                                line, scala)
        for line, scalas in _jar.SUPPORTED.items() for scala in scalas
    }
    monkeypatch.setattr(_jar, "_PACKAGE_DIR", pkg)
    assert _jar.find_jar(spark_version="3.5.2", scala="2.12") == str(jars["3.5", "2.12"])
    assert _jar.find_jar(spark_version="3.5.2", scala="2.13") == str(jars["3.5", "2.13"])
    assert _jar.find_jar(spark_version="4.0.1", scala="2.13") == str(jars["4.0", "2.13"])
    assert _jar.find_jar(spark_version="4.3.0", scala="2.13") == str(jars["4.3", "2.13"])
    with pytest.raises(UnsupportedSparkVersionError, match="Scala 2.12"):
        _jar.find_jar(spark_version="4.1.0", scala="2.12")


def test_jar_built_for_another_line_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = "3.5" if LINE != "3.5" else "4.2"
    jar = fake_jar(tmp_path / "t.jar", txlog.__version__, other, _jar.SUPPORTED[other][-1])
    monkeypatch.setenv("TXLOG_JAR", str(jar))
    with pytest.raises(JarSparkMismatchError) as info:
        _jar.find_jar()
    assert info.value.spark_line == f"{LINE}_{SCALA}"
    assert info.value.jar_line.startswith(other)
    assert _jar.jar_name(txlog.__version__, LINE, SCALA) in str(info.value)


def test_a_session_of_another_kind_is_a_type_error() -> None:
    # Neither a classic session (no JVM handle) nor one of the Connect client's module.
    other = type("SparkSession", (), {"__module__": "elsewhere.session"})()
    with pytest.raises(TypeError, match="pyspark.sql.SparkSession"):
        txlog.DeltaLog.for_table(other, "/tmp/t")


def test_env_override_with_matching_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = fake_jar(tmp_path / "any-name.jar", txlog.__version__)
    monkeypatch.setenv("TXLOG_JAR", str(jar))
    assert _jar.find_jar() == str(jar.resolve())
    assert _jar.jar_version(jar) == "0.1.0"


def test_version_mismatch_names_both_versions_and_paths(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = fake_jar(tmp_path / "txlog-spark_4.2_2.13-9.9.9.jar", "9.9.9")
    monkeypatch.setenv("TXLOG_JAR", str(jar))
    with pytest.raises(JarVersionMismatchError) as info:
        _jar.find_jar()
    err = info.value
    assert isinstance(err, TxlogError)
    assert err.jar_version == "9.9.9" and err.python_version == txlog.__version__
    msg = str(err)
    assert "9.9.9" in msg and txlog.__version__ in msg
    assert str(jar.resolve()) in msg
    assert str(Path(txlog.__file__).resolve().parent) in msg


def test_env_override_missing_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXLOG_JAR", str(tmp_path / "nope.jar"))
    with pytest.raises(JarNotFoundError, match="TXLOG_JAR") as info:
        _jar.find_jar()
    assert "sbt package" in str(info.value)
    assert isinstance(info.value, FileNotFoundError)


def test_jar_without_version_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = fake_jar(tmp_path / "x.jar", None)
    monkeypatch.setenv("TXLOG_JAR", str(jar))
    with pytest.raises(JarNotFoundError, match="version.properties"):
        _jar.find_jar()


def test_not_a_zip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.jar"
    bad.write_text("not a zip")
    monkeypatch.setenv("TXLOG_JAR", str(bad))
    with pytest.raises(JarNotFoundError, match="not a readable jar"):
        _jar.find_jar()


def test_missing_jar_tells_how_to_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TXLOG_JAR", raising=False)
    monkeypatch.setattr(_jar, "_PACKAGE_DIR", tmp_path / "site" / "txlog")
    with pytest.raises(JarNotFoundError) as info:
        _jar.find_jar()
    msg = str(info.value)
    assert _jar.jar_name("0.1.0", LINE, SCALA) in msg
    assert "make jar" in msg and "sbt package" in msg


def test_packaged_jar_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TXLOG_JAR", raising=False)
    pkg = tmp_path / "site" / "txlog"
    jar = fake_jar(pkg / "jars" / _jar.jar_name(line=LINE, scala=SCALA), txlog.__version__)
    monkeypatch.setattr(_jar, "_PACKAGE_DIR", pkg)
    assert _jar.find_jar() == str(jar.resolve())


def test_packaged_jar_with_wrong_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TXLOG_JAR", raising=False)
    pkg = tmp_path / "site" / "txlog"
    jar = fake_jar(pkg / "jars" / _jar.jar_name(line=LINE, scala=SCALA), "0.0.9")
    monkeypatch.setattr(_jar, "_PACKAGE_DIR", pkg)
    with pytest.raises(JarVersionMismatchError, match="0.0.9") as info:
        _jar.find_jar()
    assert str(jar.resolve()) in str(info.value)


def test_checkout_jar_location() -> None:
    candidates = _jar.candidate_paths()
    assert candidates[0].parent.name == "jars"
    repo = Path(__file__).resolve().parents[1]
    assert repo / "target" / "scala-2.13" / "txlog-spark_4.2_2.13-0.1.0.jar" in candidates
    other = _jar.candidate_paths(line="3.5", scala="2.12")
    assert repo / "target" / "spark-3.5_2.12" / "scala-2.12" / "txlog-spark_3.5_2.12-0.1.0.jar" \
        in other


def test_configure_spark_keeps_existing_jars(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = fake_jar(tmp_path / "t.jar", txlog.__version__)
    monkeypatch.setenv("TXLOG_JAR", str(jar))
    builder = SparkSession.builder.config("spark.jars", "/opt/a.jar,/opt/b.jar")
    assert txlog.configure_spark(builder) is builder
    assert builder._options["spark.jars"] == f"/opt/a.jar,/opt/b.jar,{jar.resolve()}"
    # Idempotent.
    txlog.configure_spark(builder)
    assert builder._options["spark.jars"] == f"/opt/a.jar,/opt/b.jar,{jar.resolve()}"


def test_configure_spark_on_fresh_builder_and_conf(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = fake_jar(tmp_path / "t.jar", txlog.__version__)
    monkeypatch.setenv("TXLOG_JAR", str(jar))
    builder = txlog.configure_spark(SparkSession.builder)
    assert builder._options["spark.jars"] == str(jar.resolve())
    conf = SparkConf(loadDefaults=False).set("spark.jars", "/opt/a.jar")
    assert txlog.configure_spark(conf).get("spark.jars") == f"/opt/a.jar,{jar.resolve()}"


def test_configure_spark_checks_the_jar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXLOG_JAR", str(fake_jar(tmp_path / "old.jar", "0.0.1")))
    builder = SparkSession.builder
    with pytest.raises(JarVersionMismatchError):
        txlog.configure_spark(builder)
    assert "spark.jars" not in builder._options


def test_configure_spark_rejects_other_types() -> None:
    with pytest.raises(TypeError, match="builder"):
        txlog.configure_spark("local[2]")  # type: ignore[type-var]


def test_configure_spark_appends_the_sql_extension(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = fake_jar(tmp_path / "t.jar", txlog.__version__)
    monkeypatch.setenv("TXLOG_JAR", str(jar))
    delta = "io.delta.sql.DeltaSparkSessionExtension"
    ours = "txlog.sql.TxlogSparkSessionExtensions"
    builder = SparkSession.builder.config("spark.sql.extensions", delta)
    txlog.configure_spark(builder)
    txlog.configure_spark(builder)
    assert builder._options["spark.sql.extensions"] == f"{delta},{ours}"
    conf = txlog.configure_spark(SparkConf(loadDefaults=False))
    assert conf.get("spark.sql.extensions") == ours
    assert txlog.spark_settings(extensions=delta) == {
        "spark.jars": str(jar.resolve()), "spark.sql.extensions": f"{delta},{ours}",
        "spark.sql.catalog.spark_catalog": "txlog.sql.TxlogCatalog"}


def test_configure_spark_sets_the_catalog_unless_one_is_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXLOG_JAR", str(fake_jar(tmp_path / "t.jar", txlog.__version__)))
    key = "spark.sql.catalog.spark_catalog"
    ours = "txlog.sql.TxlogCatalog"
    builder = txlog.configure_spark(SparkSession.builder.config("spark.app.name", "a"))
    assert builder._options[key] == ours
    assert txlog.configure_spark(SparkConf(loadDefaults=False)).get(key) == ours
    # Another catalog the user set is kept; so is txlog's own.
    iceberg = "org.apache.iceberg.spark.SparkSessionCatalog"
    kept = txlog.configure_spark(SparkConf(loadDefaults=False).set(key, iceberg))
    assert kept.get(key) == iceberg
    assert key not in txlog.spark_settings(existing_catalog=iceberg)
    assert txlog.spark_settings(existing_catalog=ours)[key] == ours
    # Beside delta-spark's catalog: a ValueError naming the setting, the builder untouched.
    delta = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
    conf = SparkConf(loadDefaults=False).set(key, delta)
    with pytest.raises(ValueError, match=f"catalog: {key} is set to {delta}"):
        txlog.configure_spark(conf)
    assert conf.get("spark.jars", None) is None
    with pytest.raises(ValueError, match="catalog="):
        txlog.spark_settings(existing_catalog=delta)
    # ... and named beside it, or no catalog at all.
    named = txlog.configure_spark(SparkConf(loadDefaults=False).set(key, delta), catalog="txlog")
    assert (named.get(key), named.get("spark.sql.catalog.txlog")) == (delta, ours)
    bare = txlog.configure_spark(SparkConf(loadDefaults=False), catalog=None)
    assert bare.get(key, None) is None and bare.get("spark.jars", None) is not None
    assert "spark.sql.catalog.txlog" in txlog.spark_settings(catalog="txlog")
    for bad in ("", "a.b", 3):
        with pytest.raises(ValueError, match="catalog must be a catalog name"):
            txlog.configure_spark(SparkConf(loadDefaults=False), catalog=bad)  # type: ignore
