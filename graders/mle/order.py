"""Columns that put the rows of a tabular dataset in time order, read from their values.

A column orders rows in time when it holds dates or date-times: a Date or
Datetime column, or text that parses as dates (`2011-01-01`, `2011-01-01
13:00`). The builder splits such a dataset by time; the leakage check orders
the public rows by such a column to look for test labels that neighbouring train
labels give away. Both read the same values the same way.
"""

from __future__ import annotations

import polars as pl

PARSED_SHARE = 0.99
"""A text column is a time column when at least this share of its present values parse as dates."""
MIN_DISTINCT_TIMES = 3
"""A time column holds at least this many distinct moments (one or two dates order nothing)."""


def time_values(values: pl.Series) -> pl.Series | None:
    """The column as sortable integers (microseconds since the epoch, null where missing), or None when it does not
    hold dates or date-times."""
    if values.dtype == pl.Date:
        parsed = values.cast(pl.Datetime("us"))
    elif isinstance(values.dtype, pl.Datetime):
        parsed = values.dt.replace_time_zone(None).cast(pl.Datetime("us"))
    elif values.dtype == pl.Utf8:
        present = values.drop_nulls()
        if present.is_empty() or not present.str.contains(r"^\d{4}-\d{2}-\d{2}").all():
            return None
        parsed = values.str.to_datetime(strict=False, time_unit="us")
        if parsed.drop_nulls().len() < PARSED_SHARE * present.len():
            return None
    else:
        return None
    parsed = parsed.dt.replace_time_zone(None) if getattr(parsed.dtype, "time_zone", None) else parsed
    numbers = parsed.cast(pl.Int64)
    return numbers if numbers.n_unique() >= MIN_DISTINCT_TIMES else None


def time_columns(frame: pl.DataFrame, skip: tuple[str, ...] = ()) -> list[str]:
    """The columns of a frame that hold dates or date-times, in column order."""
    return [column for column in frame.columns if column not in skip and time_values(frame[column]) is not None]
