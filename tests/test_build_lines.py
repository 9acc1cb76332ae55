"""The Spark lines are named in three places that must agree: the build (project/SparkLine.scala),
the Makefile (which jars `make jars` builds and which pyspark each line is tested with) and the
Python package (which jars it can pick, and the pyspark range its metadata declares)."""

from __future__ import annotations

import re

from txlog import _jar
from txlog_testing import REPO_ROOT


def _build_lines() -> dict[str, tuple[set[str], str]]:
    """line -> (Scala binary versions, pyspark version), from project/SparkLine.scala."""
    text = (REPO_ROOT / "project" / "SparkLine.scala").read_text()
    out = {}
    for m in re.finditer(r'SparkLine\(\s*"([\d.]+)",\s*"([\d.]+)",\s*Map\(([^)]*)\),\s*"([\d.]+)"',
                         text):
        scalas = set(re.findall(r'"(2\.1[23])"\s*->', m.group(3)))
        out[m.group(1)] = (scalas, m.group(4))
    return out


def _makefile() -> tuple[list[str], dict[str, str]]:
    text = (REPO_ROOT / "Makefile").read_text()
    lines = re.search(r"^LINES := (.*)$", text, re.M).group(1).split()
    pyspark = dict(re.findall(r"^PYSPARK_([\d.]+) := ([\d.]+)$", text, re.M))
    return lines, pyspark


def test_build_makefile_and_package_name_the_same_lines() -> None:
    build = _build_lines()
    assert set(build) == {"3.5", "4.0", "4.1", "4.2", "4.3"}
    lines, pyspark = _makefile()
    assert sorted(lines) == sorted(f"{line}_{s}" for line, (ss, _) in build.items() for s in ss)
    assert pyspark == {line: v for line, (_, v) in build.items()}
    assert {line: set(s) for line, s in _jar.SUPPORTED.items()} == \
        {line: ss for line, (ss, _) in build.items()}
    assert "_".join(_jar.DEFAULT_LINE) == re.search(
        r"^DEFAULT_LINE := (.*)$", (REPO_ROOT / "Makefile").read_text(), re.M).group(1)


def test_package_metadata_admits_every_lines_pyspark() -> None:
    text = (REPO_ROOT / "python" / "pyproject.toml").read_text()
    spec = re.search(r'"pyspark>=([\d.]+),<([\d.]+)"', text)
    assert spec, "pyproject.toml must declare a pyspark range"
    low, high = (tuple(int(x) for x in v.split(".")) for v in spec.groups())
    for _, version in _build_lines().values():
        v = tuple(int(x) for x in version.split("."))
        assert low <= v < high, version
