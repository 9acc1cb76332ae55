"""Locating the txlog jar and checking that its version matches the Python package.

Lookup order: the ``TXLOG_JAR`` environment variable, the jar shipped inside the wheel
(``txlog/jars/txlog_2.13-<version>.jar``), then a source checkout's
``target/scala-2.13/txlog_2.13-<version>.jar``. The jar's version is read from its
``txlog/version.properties`` entry.

>>> from txlog._jar import find_jar
>>> find_jar()  # doctest: +SKIP
'/.../txlog/jars/txlog_2.13-0.1.0.jar'
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from ._version import __version__
from .errors import JarNotFoundError, JarVersionMismatchError

__all__ = ["ENV_VAR", "VERSION_ENTRY", "jar_name", "candidate_paths", "jar_version", "find_jar"]

#: Environment variable naming a jar to use instead of the default locations.
ENV_VAR = "TXLOG_JAR"
#: The jar entry holding ``version=...``.
VERSION_ENTRY = "txlog/version.properties"

_PACKAGE_DIR = Path(__file__).resolve().parent

_BUILD_HINT = (
    "Build it from a txlog checkout with `make jar` (or `./build/sbt package`, which writes "
    "target/scala-2.13/txlog_2.13-{version}.jar), or point the {env} environment variable at "
    "a txlog jar."
)


def jar_name(version: str = __version__) -> str:
    """The jar's file name. Example: ``jar_name()`` is ``'txlog_2.13-0.1.0.jar'``."""
    return f"txlog_2.13-{version}.jar"


def _checkout_root() -> Path | None:
    # python/txlog/_jar.py in a checkout: the repository root is two levels above the package.
    root = _PACKAGE_DIR.parent.parent
    return root if (root / "build.sbt").is_file() else None


def candidate_paths(version: str = __version__) -> list[Path]:
    """The default locations, in lookup order (``TXLOG_JAR`` is not included)."""
    paths = [_PACKAGE_DIR / "jars" / jar_name(version)]
    root = _checkout_root()
    if root is not None:
        paths.append(root / "target" / "scala-2.13" / jar_name(version))
    return paths


def jar_version(path: str | os.PathLike[str]) -> str:
    """The version recorded in a txlog jar. Example: ``jar_version(find_jar())`` is ``'0.1.0'``.

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
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "version":
            return value.strip()
    raise JarNotFoundError(f"{p} is not a txlog jar: {VERSION_ENTRY} has no version.")


def find_jar(expected_version: str = __version__) -> str:
    """The absolute path of the txlog jar to use, after checking its version.

    Raises :class:`JarNotFoundError` when there is none and :class:`JarVersionMismatchError`
    when its version differs from ``expected_version`` (the package's version).
    """
    override = os.environ.get(ENV_VAR)
    if override:
        path = Path(override).expanduser().resolve()
        if not path.is_file():
            raise JarNotFoundError(
                f"{ENV_VAR} is set to {override}, which is not a file. "
                + _BUILD_HINT.format(version=expected_version, env=ENV_VAR)
            )
        source = f"{ENV_VAR}={override}"
    else:
        candidates = candidate_paths(expected_version)
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            looked = ", ".join(str(c) for c in candidates)
            raise JarNotFoundError(
                f"The txlog jar {jar_name(expected_version)} was not found (looked in: "
                f"{looked}). " + _BUILD_HINT.format(version=expected_version, env=ENV_VAR)
            )
        path = found.resolve()
        source = "default location"
    version = jar_version(path)
    if version != expected_version:
        raise JarVersionMismatchError(
            f"The txlog jar {path} ({source}) has version {version}, but the txlog Python "
            f"package at {_PACKAGE_DIR} has version {expected_version}. Use the jar built "
            f"from the same txlog release. " + _BUILD_HINT.format(
                version=expected_version, env=ENV_VAR),
            python_version=expected_version,
            jar_version=version,
        )
    return str(path)
