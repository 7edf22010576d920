"""Comparing a report table with a pinned one (tests/data/report_*): integers, strings,
rates and quantiles exactly; columns computed from float sums to 1e-12 relative, since a
streamed aggregation sums in another order."""
import polars as pl

FLOAT_SUMS = ("_mean", "_sd", "_lo", "_hi")   # computed from sums: last-digit rounding only


def assert_same_table(old: pl.DataFrame, new: pl.DataFrame) -> None:
    """Every column of ``old`` in ``new``: integers and strings equal, rates and quantiles
    exactly, columns computed from float sums (FLOAT_SUMS) to 1e-12 relative."""
    assert new.height == old.height
    for col in old.columns:
        a, b = old[col], new[col]
        if a.dtype.is_float():
            x, y = a.fill_null(float("nan")).to_numpy(), b.cast(pl.Float64).fill_null(float("nan")).to_numpy()
            tol = 1e-12 if any(col.endswith(s) for s in FLOAT_SUMS) else 0.0
            assert ((abs(x - y) <= tol * abs(x)) | (x != x) & (y != y)).all(), col
        else:
            assert a.to_list() == b.cast(a.dtype).to_list(), col
