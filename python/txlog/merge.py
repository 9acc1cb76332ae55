"""Row-level changes by condition: :meth:`txlog.DeltaLog.update` and the MERGE builder of
:meth:`txlog.DeltaLog.merge`, run on the JVM as SQL's ``UPDATE`` and ``MERGE INTO`` are.

>>> log.update("id = 7", {"status": "'closed'"}).num_updated_rows
1
>>> (log.merge(updates.alias("s"), "target.id = s.id")
...     .when_matched_update_all()
...     .when_not_matched_insert_all()
...     .execute().num_affected_rows)
100
"""

from __future__ import annotations

import json
from typing import Any

from pyspark.sql import DataFrame

from ._args import _df, _text
from ._gateway import call_text
from ._summaries import MergeResult, UpdateResult

__all__ = ["MergeBuilder", "MergeResult", "UpdateResult"]


def _assignments(name: str, value: Any) -> str:
    """A dict of column name to SQL expression (both str, non-empty) as a JSON object;
    TypeError / ValueError naming ``name`` otherwise."""
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict of column to SQL expression, got "
                        f"{type(value).__name__}")
    if not value:
        raise ValueError(f"{name} must name at least one column")
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError(f"{name} must map str column names to str SQL expressions, got "
                            f"{type(k).__name__}: {type(v).__name__}")
    return json.dumps(value)


def _condition(value: Any) -> str | None:
    return None if value is None else _text("condition", value)


def update(log: Any, condition: str | None, set: dict[str, str]) -> UpdateResult:
    """See :meth:`txlog.DeltaLog.update`."""
    cond = _condition(condition)
    return UpdateResult._of(
        call_text(log._facade.updateRows, log._jlog, cond, _assignments("set", set))
    )


class MergeBuilder:
    """A MERGE of a source DataFrame into a table, built clause by clause as delta-spark's
    ``DeltaTable.merge`` builder is, and run by :meth:`execute`. Conditions and values are SQL
    expressions over the target (by its alias, ``target`` unless :meth:`DeltaLog.merge` names
    another) and the source (by the DataFrame's own alias, ``source.alias("s")``, or
    unqualified). Clauses are tried in the order given; each call returns a new builder.

    >>> (log.merge(updates.alias("s"), "target.id = s.id")
    ...     .when_matched_delete(condition="s.deleted")
    ...     .when_matched_update(set={"v": "s.v"})
    ...     .when_not_matched_insert(values={"id": "s.id", "v": "s.v"})
    ...     .when_not_matched_by_source_delete()
    ...     .execute())
    """

    def __init__(self, log: Any, source: DataFrame, condition: str, target_alias: str,
                 clauses: tuple[dict[str, Any], ...] = (),
                 schema_evolution: bool = False) -> None:
        self._log = log
        self._jsource = _df("source", source)
        self._source = source
        self._condition = _text("condition", condition)
        self._target_alias = _text("target_alias", target_alias)
        self._clauses = clauses
        self._schema_evolution = schema_evolution

    def _add(self, kind: str, condition: Any, set: str | None) -> MergeBuilder:
        clause = {"kind": kind, "condition": _condition(condition),
                  "set": None if set is None else json.loads(set)}
        return MergeBuilder(self._log, self._source, self._condition, self._target_alias,
                            self._clauses + (clause,), self._schema_evolution)

    def with_schema_evolution(self) -> MergeBuilder:
        """Evolves the table's schema as delta-spark's ``withSchemaEvolution()``: with a
        ``when_matched_update_all`` or ``when_not_matched_insert_all`` clause, the source's
        top-level columns the table lacks are added to it (nullable, at the end) in the MERGE's
        commit; those clauses then set the source's columns only.

        >>> (log.merge(df.alias("s"), "target.id = s.id").with_schema_evolution()
        ...     .when_matched_update_all().when_not_matched_insert_all().execute())
        """
        return MergeBuilder(self._log, self._source, self._condition, self._target_alias,
                            self._clauses, True)

    def when_matched_update(self, set: dict[str, str],
                            condition: str | None = None) -> MergeBuilder:
        """Target rows the source matches (and ``condition``): ``set`` maps columns (``a``, or
        ``a.b`` for a nested field) to SQL expressions."""
        return self._add("matched_update", condition, _assignments("set", set))

    def when_matched_update_all(self, condition: str | None = None) -> MergeBuilder:
        """Target rows the source matches: every column set to the source's (``UPDATE SET *``)."""
        return self._add("matched_update", condition, None)

    def when_matched_delete(self, condition: str | None = None) -> MergeBuilder:
        """Target rows the source matches (and ``condition``) are deleted."""
        return self._add("matched_delete", condition, json.dumps({}))

    def when_not_matched_insert(self, values: dict[str, str],
                                condition: str | None = None) -> MergeBuilder:
        """Source rows no target row matches: a row of the columns ``values`` names is inserted
        (the others null or their default)."""
        return self._add("not_matched_insert", condition, _assignments("values", values))

    def when_not_matched_insert_all(self, condition: str | None = None) -> MergeBuilder:
        """Source rows no target row matches are inserted as they are (``INSERT *``)."""
        return self._add("not_matched_insert", condition, None)

    def when_not_matched_by_source_update(self, set: dict[str, str],
                                          condition: str | None = None) -> MergeBuilder:
        """Target rows no source row matches (and ``condition``): ``set`` as for
        :meth:`when_matched_update`, over the target's columns."""
        return self._add("not_matched_by_source_update", condition, _assignments("set", set))

    def when_not_matched_by_source_delete(self, condition: str | None = None) -> MergeBuilder:
        """Target rows no source row matches (and ``condition``) are deleted."""
        return self._add("not_matched_by_source_delete", condition, json.dumps({}))

    def execute(self) -> MergeResult:
        """Runs the MERGE: one ``MERGE`` commit (none when nothing changes; only
        ``when_not_matched`` clauses: an append, a ``WRITE`` commit).
        :class:`txlog.errors.InvalidArgumentError` for an expression that does not parse or
        resolve, or no clause; a source row matching two target rows fails (Spark's
        MERGE_CARDINALITY_VIOLATION) and nothing is committed.

        >>> r = log.merge(df, "target.id = id").when_matched_update_all().execute()
        >>> r.num_updated_rows, r.version
        """
        if not self._clauses:
            raise ValueError("merge has no when_... clause: nothing to do")
        return MergeResult._of(call_text(
            self._log._facade.merge, self._log._jlog, self._jsource, self._condition,
            self._target_alias, json.dumps(list(self._clauses)), self._schema_evolution,
        ))
