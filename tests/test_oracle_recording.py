"""The recorded delta-rs answers are used only on the fixtures they were recorded from: a copy of
the fixtures with one file changed, or a table removed or added, fails the stamp check, naming
the table; and the digests are the ones the Scala recording (FixtureDigest) computes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import oracle_recording
from oracle_recording import RecordingError
from txlog_testing import FIXTURES_MISSING, FIXTURES_ROOT, REPO_ROOT, copy_table

pytestmark = pytest.mark.skipif(not FIXTURES_ROOT.is_dir(), reason=FIXTURES_MISSING)


@pytest.fixture
def fixtures_copy(tmp_path: Path) -> Path:
    return copy_table(FIXTURES_ROOT, tmp_path / "fixtures")


def test_recording_matches_the_fixtures_present() -> None:
    doc = oracle_recording.load()
    assert doc["answers"]["golden/checkpoint"]["versions"]["latest"]["version"] == 14
    assert set(doc["answers"]) == set(oracle_recording.tables_under(FIXTURES_ROOT))


def test_one_changed_byte_fails_the_check_naming_its_table(fixtures_copy: Path) -> None:
    oracle_recording.load(fixtures_copy)  # an unchanged copy passes
    commit = fixtures_copy / "golden/checkpoint/_delta_log/00000000000000000003.json"
    commit.write_text(commit.read_text().replace('"size":1', '"size":91', 1))
    with pytest.raises(RecordingError, match=r"\(changed: golden/checkpoint\).*make oracle-record"):
        oracle_recording.load(fixtures_copy)


def test_a_table_removed_or_added_fails_the_check(fixtures_copy: Path) -> None:
    shutil.rmtree(fixtures_copy / "golden/checkpoint")
    with pytest.raises(RecordingError, match=r"\(gone: golden/checkpoint\)"):
        oracle_recording.load(fixtures_copy)
    shutil.copytree(FIXTURES_ROOT / "golden/checkpoint", fixtures_copy / "golden/checkpoint")
    shutil.copytree(FIXTURES_ROOT / "golden/checkpoint", fixtures_copy / "golden/checkpoint-2")
    with pytest.raises(RecordingError, match=r"\(not recorded: golden/checkpoint-2\)"):
        oracle_recording.load(fixtures_copy)


def test_digests_agree_with_the_scala_recording() -> None:
    """Both recordings stamp the same fixtures with the same digests: one algorithm, two
    languages."""
    scala = sorted((REPO_ROOT / "src/test/resources/oracle").glob("delta-spark-*.jsonl"))
    assert scala, "no delta-spark recording"
    for f in scala:
        header = json.loads(f.read_text(encoding="utf-8").splitlines()[0])
        assert header["tables"] == oracle_recording.fixture_digests(FIXTURES_ROOT), f.name
        assert header["fixturesDigest"] == oracle_recording.combined_digest(header["tables"])
