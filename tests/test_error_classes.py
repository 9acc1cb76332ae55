"""The JVM's error classes and the Python package's map of them kept in step: every class of the
enumeration ``txlog.ErrorClasses`` (which ``txlog.errors.TxlogErrors`` and its parts build errors from,
and only from) has its Python exception in ``txlog.errors.ERROR_CLASSES`` (or is listed below,
with why not), every mapped class is one the JVM has, and the command line's exit-code lists name
only real classes. Read from the Scala sources, so a class added on one side and not the other
fails here; no Spark is started."""

from __future__ import annotations

import re
from pathlib import Path

from txlog.errors import ERROR_CLASSES, JarSparkMismatchError, TxlogError, error_for

SCALA = Path(__file__).resolve().parents[1] / "src" / "main" / "scala" / "txlog"

#: JVM error classes deliberately left to the base class, and why (none at present).
UNMAPPED: dict[str, str] = {}


def jvm_classes() -> set[str]:
    """The classes ``txlog.ErrorClasses`` enumerates."""
    text = (SCALA / "ErrorClasses.scala").read_text()
    declared = dict(re.findall(r'^  val (\w+) = "([A-Z_]+)"$', text, re.M))
    listed = re.search(r"val all: Seq\[String\] = Seq\(([^)]*)\)", text)
    assert listed, "ErrorClasses.all not found"
    assert set(re.findall(r"\w+", listed.group(1))) == set(declared), "all lists every class"
    return set(declared.values())


def test_errors_name_their_class_from_the_enumeration() -> None:
    used: set[str] = set()
    sources = sorted((SCALA / "errors").glob("*Errors.scala"))
    assert len(sources) >= 5, "the error builders are in src/main/scala/txlog/errors"
    for source in sources:
        text = source.read_text()
        literal = re.findall(r'(?:new TxlogException|conflict)\(\s*"([A-Z_]+)"', text)
        assert literal == [], f"{source.name} names classes as literals: {literal}"
        used |= set(re.findall(r"ErrorClasses\.(\w+)", text))
    declared = set(re.findall(r'^  val (\w+) = "', (SCALA / "ErrorClasses.scala").read_text(),
                              re.M))  # fmt: skip
    assert used == declared, (declared - used, used - declared)


def test_every_jvm_error_class_is_mapped() -> None:
    classes = jvm_classes()
    assert len(classes) > 30, classes
    assert classes - set(ERROR_CLASSES) == set(UNMAPPED)


def test_every_mapped_class_is_built_by_the_jvm() -> None:
    assert set(ERROR_CLASSES) - jvm_classes() == set()
    assert all(issubclass(cls, TxlogError) for cls in ERROR_CLASSES.values())


def test_errors_are_built_in_one_place() -> None:
    elsewhere = [str(p) for p in SCALA.rglob("*.scala")
                 if not p.name.endswith("Errors.scala") and "new TxlogException(" in p.read_text()]
    assert elsewhere == []


def test_exit_code_lists_name_real_classes() -> None:
    outcome = (SCALA / "cli" / "Outcome.scala").read_text()
    named = set(re.findall(r'"([A-Z][A-Z_]+[A-Z])"', outcome))
    assert named and named <= jvm_classes(), named - jvm_classes()


def test_every_mapped_class_is_built_from_a_jvm_error() -> None:
    for error_class, cls in ERROR_CLASSES.items():
        err = error_for(error_class, f"[{error_class}] problem", "/t/_delta_log/1.json", 1)
        assert type(err) is cls and err.error_class == error_class, error_class
    mismatch = error_for("JAR_SPARK_MISMATCH", "built for Spark 4.2, runs on 3.5")
    assert isinstance(mismatch, JarSparkMismatchError) and mismatch.jar_line is None


def test_every_class_has_a_sqlstate() -> None:
    """``ErrorClasses.sqlState`` gives each class a SQLSTATE (five digits or capitals), which
    ``TxlogException.getSqlState`` reports to Spark, SQL and Connect clients."""
    text = (SCALA / "ErrorClasses.scala").read_text()
    names = dict(re.findall(r'^  val (\w+) = "([A-Z_]+)"$', text, re.M))
    block = re.search(r"val sqlState: Map\[String, String\] = Map\(([^)]*)\)", text)
    assert block, "ErrorClasses.sqlState not found"
    states = dict(re.findall(r'(\w+) -> "([0-9A-Z]{5})"', block.group(1)))
    assert set(states) == set(names), (set(names) - set(states), set(states) - set(names))
    assert set(names.values()) == jvm_classes()
