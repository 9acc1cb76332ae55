"""Locating the txlog jar for the running Spark and checking it matches the Python package.

txlog is built once per Spark line (Spark's major.minor) and Scala version; the wheel carries
one jar per line, named as Spark libraries are: ``txlog-spark_<line>_<scala>-<version>.jar``
(``txlog-spark_4.2_2.13-0.1.0.jar``). The line comes from the running pyspark, the Scala
version from the ``scala-library`` jar of the Spark installation (``SPARK_HOME``, else
pyspark's own ``jars`` folder).

Lookup order: the ``TXLOG_JAR`` environment variable, the jar shipped inside the wheel
(``txlog/jars/``), then a source checkout's build output (``make jar`` for the default line,
``make jar-<line>_<scala>`` for the others). The jar's version, Spark line and Scala version are
read from its ``txlog/version.properties`` entry and must match.

>>> from txlog._jar import find_jar
>>> find_jar()  # doctest: +SKIP
'/.../txlog/jars/txlog-spark_4.2_2.13-0.1.0.jar'
"""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

from ._version import __version__
from .errors import (
    JarNotFoundError,
    JarSparkMismatchError,
    JarVersionMismatchError,
    UnsupportedSparkVersionError,
)

__all__ = [
    "ENV_VAR",
    "VERSION_ENTRY",
    "SUPPORTED",
    "DEFAULT_LINE",
    "spark_line",
    "scala_binary",
    "jar_name",
    "candidate_paths",
    "jar_properties",
    "jar_version",
    "find_jar",
]

#: Environment variable naming a jar to use instead of the default locations.
ENV_VAR = "TXLOG_JAR"
#: The jar entry holding ``version=...``, ``spark.line=...`` and ``scala.binary=...``.
VERSION_ENTRY = "txlog/version.properties"
#: Spark line -> the Scala versions txlog is built for on it (project/SparkLine.scala).
SUPPORTED: dict[str, tuple[str, ...]] = {
    "3.5": ("2.12", "2.13"),
    "4.0": ("2.13",),
    "4.1": ("2.13",),
    "4.2": ("2.13",),
    "4.3": ("2.13",),
}
#: The line a plain ``make jar`` builds, into ``target/scala-2.13``.
DEFAULT_LINE = ("4.2", "2.13")

_PACKAGE_DIR = Path(__file__).resolve().parent
_SCALA_LIBRARY = re.compile(r"^scala-library-(2\.1[23])\.\d+\.jar$")

_BUILD_HINT = (
    "Build it from a txlog checkout with `make jar` (Spark {default}; `./build/sbt package` "
    "writes it to target/scala-2.13/) or `make jar-<line>_<scala>` for another Spark line, or "
    "point the {env} environment variable at a txlog jar."
)


def _supported_text() -> str:
    return ", ".join(f"Spark {line} (Scala {' and '.join(s)})" for line, s in SUPPORTED.items())


def spark_line(spark_version: str | None = None) -> str:
    """The Spark line (major.minor) of ``spark_version``, by default the running pyspark's.

    Raises :class:`UnsupportedSparkVersionError` naming the supported lines when txlog is not
    built for it. Example: ``spark_line("3.5.2")`` is ``'3.5'``.
    """
    if spark_version is None:
        import pyspark

        spark_version = pyspark.__version__
    m = re.match(r"^(\d+)\.(\d+)", str(spark_version))
    line = f"{m.group(1)}.{m.group(2)}" if m else str(spark_version)
    if line not in SUPPORTED:
        raise UnsupportedSparkVersionError(
            f"txlog {__version__} does not support Spark {spark_version}; it supports "
            f"{_supported_text()}. Install a supported pyspark (or run on a cluster with a "
            "supported Spark release).",
            spark_version=str(spark_version),
        )
    return line


def _spark_jars_dirs() -> list[Path]:
    dirs = []
    home = os.environ.get("SPARK_HOME")
    if home:
        dirs.append(Path(home) / "jars")
    try:
        import pyspark

        dirs.append(Path(pyspark.__file__).resolve().parent / "jars")
    except ImportError:  # pragma: no cover - pyspark is a dependency
        pass
    return dirs


def scala_binary(line: str, jars_dirs: list[Path] | None = None) -> str:
    """The Scala binary version of the Spark installation: the one of its ``scala-library`` jar,
    looked for in ``jars_dirs`` (default: ``$SPARK_HOME/jars``, then pyspark's ``jars``); when
    none is found, the only or the first Scala version txlog is built for on ``line`` (2.12 for
    Spark 3.5, as its pyspark from PyPI carries). Example: ``scala_binary("4.2")`` is
    ``'2.13'``.
    """
    for d in _spark_jars_dirs() if jars_dirs is None else jars_dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            m = _SCALA_LIBRARY.match(name)
            if m:
                return m.group(1)
    return SUPPORTED[line][0]


def jar_name(version: str = __version__, line: str = DEFAULT_LINE[0],
             scala: str = DEFAULT_LINE[1]) -> str:
    """The jar's file name. Example: ``jar_name()`` is ``'txlog-spark_4.2_2.13-0.1.0.jar'``."""
    return f"txlog-spark_{line}_{scala}-{version}.jar"


def _checkout_root() -> Path | None:
    # python/txlog/_jar.py in a checkout: the repository root is two levels above the package.
    root = _PACKAGE_DIR.parent.parent
    return root if (root / "build.sbt").is_file() else None


def candidate_paths(version: str = __version__, line: str = DEFAULT_LINE[0],
                    scala: str = DEFAULT_LINE[1]) -> list[Path]:
    """The default locations, in lookup order (``TXLOG_JAR`` is not included)."""
    name = jar_name(version, line, scala)
    paths = [_PACKAGE_DIR / "jars" / name]
    root = _checkout_root()
    if root is not None:
        if (line, scala) == DEFAULT_LINE:
            paths.append(root / "target" / f"scala-{scala}" / name)
        else:
            paths.append(root / "target" / f"spark-{line}_{scala}" / f"scala-{scala}" / name)
    return paths


def jar_properties(path: str | os.PathLike[str]) -> dict[str, str]:
    """The entries of a txlog jar's ``version.properties``.

    Raises :class:`JarNotFoundError` when the file is not a readable txlog jar.
    """
    p = Path(path)
    try:
        with zipfile.ZipFile(p) as zf:
            text = zf.read(VERSION_ENTRY).decode("utf-8")
    except FileNotFoundError:
        raise JarNotFoundError(f"The txlog jar {p} does not exist.") from None
    except KeyError:
        raise JarNotFoundError(
            f"{p} is not a txlog jar: it has no {VERSION_ENTRY} entry."
        ) from None
    except (zipfile.BadZipFile, OSError) as e:
        raise JarNotFoundError(f"{p} is not a readable jar: {e}") from None
    props = {}
    for entry in text.splitlines():
        key, sep, value = entry.partition("=")
        if sep:
            props[key.strip()] = value.strip()
    if "version" not in props:
        raise JarNotFoundError(f"{p} is not a txlog jar: {VERSION_ENTRY} has no version.")
    return props


def jar_version(path: str | os.PathLike[str]) -> str:
    """The version recorded in a txlog jar. Example: ``jar_version(find_jar())`` is ``'0.1.0'``.

    Raises :class:`JarNotFoundError` when the file is not a readable txlog jar.
    """
    return jar_properties(path)["version"]


def find_jar(expected_version: str = __version__, spark_version: str | None = None,
             scala: str | None = None) -> str:
    """The absolute path of the txlog jar for the running Spark, after checking it.

    ``spark_version`` (default: the running pyspark's) picks the Spark line and ``scala``
    (default: :func:`scala_binary`) the Scala version. Raises
    :class:`UnsupportedSparkVersionError` for a Spark line txlog is not built for,
    :class:`JarNotFoundError` when there is no jar, :class:`JarVersionMismatchError` when its
    version differs from ``expected_version`` (the package's), and
    :class:`JarSparkMismatchError` when it was built for another Spark line or Scala version.
    """
    line = spark_line(spark_version)
    scala = scala or scala_binary(line)
    if scala not in SUPPORTED[line]:
        raise UnsupportedSparkVersionError(
            f"txlog {__version__} is not built for Spark {line} with Scala {scala}; it "
            f"supports {_supported_text()}.",
            spark_version=f"{line} (Scala {scala})",
        )
    hint = _BUILD_HINT.format(default=" with Scala ".join(DEFAULT_LINE), env=ENV_VAR)
    override = os.environ.get(ENV_VAR)
    if override:
        path = Path(override).expanduser().resolve()
        if not path.is_file():
            raise JarNotFoundError(
                f"{ENV_VAR} is set to {override}, which is not a file. " + hint
            )
        source = f"{ENV_VAR}={override}"
    else:
        candidates = candidate_paths(expected_version, line, scala)
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            looked = ", ".join(str(c) for c in candidates)
            raise JarNotFoundError(
                f"The txlog jar {jar_name(expected_version, line, scala)} for Spark {line} "
                f"with Scala {scala} was not found (looked in: {looked}). " + hint
            )
        path = found.resolve()
        source = "default location"
    props = jar_properties(path)
    version = props["version"]
    if version != expected_version:
        raise JarVersionMismatchError(
            f"The txlog jar {path} ({source}) has version {version}, but the txlog Python "
            f"package at {_PACKAGE_DIR} has version {expected_version}. Use the jar built "
            f"from the same txlog release. " + hint,
            python_version=expected_version,
            jar_version=version,
        )
    # Jars from before the cross-build record no line: they were built for 4.2 with 2.13.
    built = (props.get("spark.line", DEFAULT_LINE[0]), props.get("scala.binary", DEFAULT_LINE[1]))
    if built != (line, scala):
        raise JarSparkMismatchError(
            f"The txlog jar {path} ({source}) is built for Spark {built[0]} with Scala "
            f"{built[1]}, but the running Spark is {line} with Scala {scala}. Use "
            f"{jar_name(expected_version, line, scala)}. " + hint,
            jar_line=f"{built[0]}_{built[1]}",
            spark_line=f"{line}_{scala}",
        )
    return str(path)
