"""SQLite needs one fix to agree with PostgreSQL on the aggregates we use.

Django implements ``STDDEV_SAMP`` on SQLite with ``statistics.stdev``, which raises for fewer
than two values, so a query over a sample with one rating fails instead of returning NULL as
PostgreSQL does. We register a NULL-returning version on every new SQLite connection.
"""

from __future__ import annotations

import statistics


class SampleStdDev(list):
    step = list.append

    def finalize(self) -> float | None:
        values = [v for v in self if v is not None]
        return statistics.stdev(values) if len(values) > 1 else None


def register_aggregates(sender, connection, **kwargs) -> None:
    if connection.vendor == "sqlite":
        connection.connection.create_aggregate("STDDEV_SAMP", 1, SampleStdDev)
