"""Locating the jar, checking its version, and configure_spark (no Spark session needed)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from pyspark import SparkConf
from pyspark.sql import SparkSession

import txlog
from txlog import _jar
from txlog.errors import JarNotFoundError, JarVersionMismatchError, TxlogError


def fake_jar(path: Path, version: str | None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        if version is not None:
            zf.writestr(_jar.VERSION_ENTRY, f"version={version}\nspark.version=4.2.0\n")
    return path


def test_version_constant() -> None:
    assert txlog.__version__ == "0.1.0"
    assert _jar.jar_name() == "txlog_2.13-0.1.0.jar"


def test_env_override_with_matching_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = fake_jar(tmp_path / "any-name.jar", txlog.__version__)
    monkeypatch.setenv("TXLOG_JAR", str(jar))
    assert _jar.find_jar() == str(jar.resolve())
    assert _jar.jar_version(jar) == "0.1.0"


def test_version_mismatch_names_both_versions_and_paths(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = fake_jar(tmp_path / "txlog_2.13-9.9.9.jar", "9.9.9")
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
    assert "txlog_2.13-0.1.0.jar" in msg
    assert "make jar" in msg and "sbt package" in msg


def test_packaged_jar_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TXLOG_JAR", raising=False)
    pkg = tmp_path / "site" / "txlog"
    jar = fake_jar(pkg / "jars" / _jar.jar_name(), txlog.__version__)
    monkeypatch.setattr(_jar, "_PACKAGE_DIR", pkg)
    assert _jar.find_jar() == str(jar.resolve())


def test_packaged_jar_with_wrong_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TXLOG_JAR", raising=False)
    pkg = tmp_path / "site" / "txlog"
    jar = fake_jar(pkg / "jars" / _jar.jar_name(), "0.0.9")
    monkeypatch.setattr(_jar, "_PACKAGE_DIR", pkg)
    with pytest.raises(JarVersionMismatchError, match="0.0.9") as info:
        _jar.find_jar()
    assert str(jar.resolve()) in str(info.value)


def test_checkout_jar_location() -> None:
    candidates = _jar.candidate_paths()
    assert candidates[0].parent.name == "jars"
    repo = Path(__file__).resolve().parents[1]
    assert repo / "target" / "scala-2.13" / "txlog_2.13-0.1.0.jar" in candidates


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
