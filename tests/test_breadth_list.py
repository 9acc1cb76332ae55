"""`make test` runs a share of some Scala suites' tests (txlog.testing.Breadth's items, the tests
declared with txlog.testing.InTurn), rotating by day; `make test-breadth` runs all of them for the
suites its BREADTH_SCALA names. A suite that takes a share and is not named there would never run
its other tests on the default line: this keeps the list whole."""

from __future__ import annotations

import re

from txlog_testing import REPO_ROOT


def _sharing_suites() -> set[str]:
    """Suites defined in a test source that uses Breadth's shares or InTurn (with the subclasses
    the same file defines, which inherit them)."""
    out = set()
    for f in (REPO_ROOT / "src" / "test" / "scala").rglob("*.scala"):
        if "testing" in f.parent.parts[-1:]:
            continue  # Breadth and InTurn themselves
        text = f.read_text()
        if not re.search(r"Breadth\.|InTurn", text):
            continue
        package = re.search(r"^package (\S+)", text, re.M).group(1)
        out |= {f"{package}.{c}"
                for c in re.findall(r"^(?:final )?class (\w+Suite\w*)", text, re.M)}
    return out


def test_breadth_names_every_suite_that_takes_a_share() -> None:
    makefile = (REPO_ROOT / "Makefile").read_text()
    listed = re.search(r"^BREADTH_SCALA := (.*?)\n(?!  )", makefile, re.M | re.S).group(1)
    named = set(listed.replace("\\", " ").split())
    sharing = _sharing_suites()
    assert "txlog.streaming.StreamSourceParitySuite" in sharing  # the scan finds them
    assert sharing - named == set(), "add these to BREADTH_SCALA in the Makefile"
    assert named - sharing == set(), "these take no share: BREADTH_SCALA need not name them"
