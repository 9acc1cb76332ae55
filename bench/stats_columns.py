"""Per-file statistics as delta-spark writes them, for the synthetic tables' ten data columns.

The table's schema is ten data columns of mixed types plus the two partition columns `date`
(date) and `part` (integer). Each file's statistics cover the ten data columns, as delta-spark
collects them: `numRecords`; `minValues` / `maxValues` for every column but the boolean one
(delta-spark keeps no bounds for booleans) and without the `note` column in files where it is
all null (to_json drops nulls); `nullCount` for all ten. They are produced twice from the same
values, vectorised: as the JSON `stats` string of commits and checkpoints, and as the typed
`stats_parsed` struct (with `partitionValues_parsed`) of checkpoints, which delta-spark writes by
default (delta.checkpoint.writeStatsAsStruct=true).
"""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import rowtext

#: (name, Delta type, Arrow type) of the data columns, in schema order.
DATA_COLUMNS = [
    ("id", "long", pa.int64()),
    ("customer_id", "integer", pa.int32()),
    ("amount", "double", pa.float64()),
    ("price", "decimal(12,2)", pa.decimal128(12, 2)),
    ("category", "string", pa.string()),
    ("country", "string", pa.string()),
    ("event_date", "date", pa.date32()),
    ("event_ts", "timestamp", pa.timestamp("us", tz="UTC")),
    ("is_refund", "boolean", pa.bool_()),
    ("note", "string", pa.string()),
]
PARTITION_COLUMNS = [("date", "date", pa.date32()), ("part", "integer", pa.int32())]
NO_BOUNDS = {"is_refund"}  # delta-spark collects no min/max for booleans
BOUNDED = [(n, t) for n, _, t in DATA_COLUMNS if n not in NO_BOUNDS]
BOUNDS_TYPE = pa.struct(BOUNDED)
STATS_PARSED_TYPE = pa.struct([
    ("numRecords", pa.int64()),
    ("minValues", BOUNDS_TYPE),
    ("maxValues", BOUNDS_TYPE),
    ("nullCount", pa.struct([(n, pa.int64()) for n, _, _ in DATA_COLUMNS])),
])  # fmt: skip
PARTITION_PARSED_TYPE = pa.struct([(n, t) for n, _, t in PARTITION_COLUMNS])

EPOCH_DAY_2024 = (date(2024, 1, 1) - date(1970, 1, 1)).days
DAY_MS = 86_400_000
# Sorted, so that a smaller index is a smaller string (min <= max).
CATEGORIES = sorted(["books", "electronics", "garden", "grocery", "health", "home", "kids",
                     "music", "office", "outdoor", "pets", "sports", "toys", "travel"])  # fmt: skip
COUNTRIES = sorted(["AT", "BE", "BR", "CA", "CH", "DE", "DK", "ES", "FI", "FR", "GB", "IE",
                    "IN", "IT", "JP", "MX", "NL", "NO", "PL", "SE", "US"])  # fmt: skip
DAY_TEXT = [(date(2024, 1, 1) + timedelta(days=d)).isoformat() for d in range(400)]


def schema_fields() -> list[tuple[str, str]]:
    """(name, Delta type) of every column of the table, partition columns last."""
    return [(n, t) for n, t, _ in DATA_COLUMNS + PARTITION_COLUMNS]


def _text(values: np.ndarray, width: int = 0) -> pa.Array:
    s = pc.cast(pa.array(values), pa.string())
    return pc.utf8_lpad(s, width=width, padding="0") if width else s


def _join(*parts) -> pa.Array:
    return pc.binary_join_element_wise(*parts, "")


def _timestamp(text: rowtext.Template, ms: np.ndarray) -> rowtext.Template:
    """ISO-8601 UTC text with milliseconds, as in delta-spark's stats (2024-01-05T03:04:05.678Z);
    `ms` is epoch milliseconds from 2024-01-01 on (400 days)."""
    rest = ms % DAY_MS
    text.word(DAY_TEXT, ms // DAY_MS - EPOCH_DAY_2024).const("T").digits(rest // 3_600_000, 2)
    text.const(":").digits(rest // 60_000 % 60, 2).const(":").digits(rest // 1000 % 60, 2)
    return text.const(".").digits(rest % 1000, 3).const("Z")


def _decimal(cents: np.ndarray, dtype: pa.DataType) -> pa.Array:
    """Decimal128 values whose unscaled integers are `cents` (non-negative)."""
    words = np.zeros((len(cents), 2), dtype=np.int64)
    words[:, 0] = cents
    return pa.Array.from_buffers(dtype, len(cents), [None, pa.py_buffer(words.tobytes())])


def columns(indices: np.ndarray, h: np.ndarray, records: np.ndarray, day: np.ndarray,
            part: np.ndarray) -> dict[str, pa.Array]:
    """`stats` (JSON text), `stats_parsed` and `partitionValues_parsed` of the files `indices`,
    from a per-file hash `h`, their record counts and their partition's day (0-based in
    January 2024) and part."""  # fmt: skip
    n = len(indices)
    u = h.astype(np.uint64)
    fields = ((0, 1000), (10, 1 << 20), (30, 100_000), (40, 50_000), (47, len(CATEGORIES)),
              (51, len(COUNTRIES)), (55, 10), (59, 7))  # (shift, modulus) of each value
    bits = [((u >> np.uint64(s)) % np.uint64(m)).astype(np.int64) for s, m in fields]
    cust, cust_span, cents, cents_span, cat, ctry, nulls, spread = bits
    id_min = indices.astype(np.int64) * 1_000_000
    id_max = id_min + records - 1
    cust_max = cust + cust_span
    price_min, price_max = cents % 5_000 + 99, cents % 5_000 + 99 + cents_span
    amount_min, amount_max = cents, cents + cents_span * 3
    cat_min, cat_max = np.minimum(cat, cat // 2), cat
    ctry_min, ctry_max = ctry // 3, ctry
    date_min = day
    date_max = day + spread % 2
    ts_min = (EPOCH_DAY_2024 + day) * DAY_MS + (h >> np.uint64(3)).astype(np.int64) % DAY_MS
    end_of_max_day = (EPOCH_DAY_2024 + date_max + 1) * DAY_MS - 1
    ts_max = np.minimum(ts_min + spread * 3_600_000 + cents_span, end_of_max_day)
    amount_nulls, refund_nulls = nulls, nulls // 3
    note_nulls = np.where(spread < 2, records, records // (2 + spread))  # spread<2: all null
    has_note = spread >= 2
    note_max_code = np.maximum(cust, cust_max % 1000)
    values = {
        "min": [id_min, cust, amount_min, price_min, cat_min, ctry_min, date_min, ts_min],
        "max": [id_max, cust_max, amount_max, price_max, cat_max, ctry_max, date_max, ts_max],
    }
    zero = np.zeros(n, np.int64)
    null_counts = [zero, zero, amount_nulls, zero, zero, nulls // 5, zero, zero, refund_nulls,
                   note_nulls]  # fmt: skip

    def note_min_text(t: rowtext.Template) -> None:
        t.const(',"note":"note ').digits(cust, 3).const(" ").word(COUNTRIES, ctry_min).const('"')

    def note_max_text(t: rowtext.Template) -> None:
        t.const(',"note":"note ').digits(note_max_code, 3).const(' zz"')

    text = rowtext.Template(n).const('{"numRecords":').number(records, 9)
    for which in ("min", "max"):
        i, c, a, p, cat_i, ctry_i, d, ts = values[which]
        text.const(f',"{which}Values":{{"id":').number(i, 16)
        text.const(',"customer_id":').number(c, 8)
        text.const(',"amount":').number(a // 100, 8).const(".").digits(a % 100, 2)
        text.const(',"price":').number(p // 100, 8).const(".").digits(p % 100, 2)
        text.const(',"category":"').word(CATEGORIES, cat_i)
        text.const('","country":"').word(COUNTRIES, ctry_i)
        text.const('","event_date":"').word(DAY_TEXT, d)
        _timestamp(text.const('","event_ts":"'), ts).const('"')
        text.optional(has_note, note_min_text if which == "min" else note_max_text).const("}")
    text.const(',"nullCount":{')
    for k, ((name, _, _), count) in enumerate(zip(DATA_COLUMNS, null_counts, strict=True)):
        text.const(f'{"," if k else ""}"{name}":').number(count, 9)
    stats = text.const("}}").render()
    note_min = _join("note ", _text(cust, 3), " ", pa.array(COUNTRIES).take(pa.array(ctry_min)))
    note_max = _join("note ", _text(note_max_code, 3), " zz")
    cats, ctrs = pa.array(CATEGORIES), pa.array(COUNTRIES)
    for which, note in (("min", note_min), ("max", note_max)):
        v = values[which]
        v[4], v[5] = cats.take(pa.array(v[4])), ctrs.take(pa.array(v[5]))
        v.append(note)

    def bounds_struct(v: list) -> pa.Array:
        i, c, a, p, cat_s, ctry_s, d, ts, note = v
        mask = pa.array(~has_note)
        arrays = [
            pa.array(i), pa.array(c.astype(np.int32)), pa.array(a / 100.0),
            _decimal(p, pa.decimal128(12, 2)), cat_s, ctry_s,
            pa.array((EPOCH_DAY_2024 + d).astype(np.int32), pa.date32()),
            pa.array(ts * 1000, pa.timestamp("us", tz="UTC")),
            pc.if_else(mask, pa.nulls(n, pa.string()), note),
        ]  # fmt: skip
        return pa.StructArray.from_arrays(arrays, fields=list(BOUNDS_TYPE))

    nulls_struct = pa.StructArray.from_arrays(
        [pa.array(c) for c in null_counts], fields=list(STATS_PARSED_TYPE.field("nullCount").type)
    )
    parsed = pa.StructArray.from_arrays(
        [pa.array(records), bounds_struct(values["min"]), bounds_struct(values["max"]),
         nulls_struct],
        fields=list(STATS_PARSED_TYPE),
    )  # fmt: skip
    partition = pa.StructArray.from_arrays(
        [pa.array((EPOCH_DAY_2024 + day).astype(np.int32), pa.date32()),
         pa.array(part.astype(np.int32))],
        fields=list(PARTITION_PARSED_TYPE),
    )  # fmt: skip
    return {"stats": stats, "stats_parsed": parsed, "partitionValues_parsed": partition}
