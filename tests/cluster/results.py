"""Comparing two runs' results of the cluster job (local mode and the cluster): the errors a
result holds, and where two results differ."""

from __future__ import annotations

from typing import Any, Iterator


def errors_in(value: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(value, dict):
        if set(value) == {"error"}:
            yield where, value["error"]
            return
        for k, v in value.items():
            yield from errors_in(v, f"{where}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from errors_in(v, f"{where}[{i}]")


def differences(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Where two results differ, as readable lines (at most a few per step)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for k in sorted(set(expected) | set(actual)):
            if k not in actual:
                out.append(f"{where}/{k}: missing on the cluster (local: {expected[k]!r:.300})")
            elif k not in expected:
                out.append(f"{where}/{k}: only on the cluster: {actual[k]!r:.300}")
            else:
                out += differences(expected[k], actual[k], f"{where}/{k}")
        return out
    if expected != actual:
        return [f"{where}: local {expected!r:.400} != cluster {actual!r:.400}"]
    return []
