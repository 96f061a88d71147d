"""Annotator quality: one row per rater, computed from flat value lists in numpy.

Thresholds are deliberately simple and shown on the page; a flag is a prompt to look at the
rater's ratings, never an automatic exclusion.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.db import connections
from django.db.models import F, FloatField, Func, QuerySet, Subquery

from annotations import metrics
from annotations.models import Rater, RaterExclusion, Rating

MIN_ITEMS = 5  # fewer items say nothing about a response style
LOW_CORRELATION = 0.2
LENIENCY = 1.0  # mean offset from the others, in scale points
FAST_SECONDS = 3.0
EXTREMES = (1.0, 5.0)


@dataclass
class RaterRow:
    rater_id: int
    pseudonym: str = ""
    kind: str = ""
    items: int = 0
    median_seconds: float | None = None
    correlation: float | None = None
    leniency: float | None = None
    straight_lining: bool = False
    extreme_only: bool = False
    participant: dict | None = None
    flags: list[str] = field(default_factory=list)


class Seconds(Func):
    """``created_at - started_at`` in seconds, as a float on every database."""

    output_field = FloatField()
    arity = 2
    template = "EXTRACT(EPOCH FROM (%(expressions)s))"
    arg_joiner = " - "

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(
            compiler,
            connection,
            template="((julianday(%(expressions)s)) * 86400.0)",
            arg_joiner=") - julianday(",
            **extra,
        )


def _fetch(ratings: QuerySet[Rating]):
    qs = (
        ratings.order_by()
        .annotate(took=Seconds(F("created_at"), F("started_at")))
        .values_list("sample_id", "rater_id", "score", "sample__story__setup_id", "took")
    )
    sql, params = qs.query.get_compiler(using=qs.db).as_sql()
    with connections[qs.db].cursor() as cursor:
        cursor.execute(sql, params)
        rows = np.array(cursor.fetchall(), dtype=float).reshape(-1, 5)
    ints = rows[:, :4].astype(np.int64)
    rater_ids, rater_code = np.unique(ints[:, 1], return_inverse=True)
    table = metrics.RatingTable(
        sample=metrics._codes(ints[:, 0]),
        rater=rater_code.ravel().astype(np.int64),
        score=ints[:, 2].astype(float),
        setup=metrics._codes(ints[:, 3]),
    )
    return table, rater_ids, rows[:, 4]


def _per_rater(table: metrics.RatingTable, n: int) -> dict[str, np.ndarray]:
    loo = metrics.others_means(table)
    usable = ~np.isnan(loo)
    g, score, other = table.rater[usable], table.score[usable], loo[usable]
    ones = np.ones(len(g))
    rho = metrics.grouped_pearson(
        g,
        metrics.GroupedRanks(g, score).ranks(ones),
        metrics.GroupedRanks(g, other).ranks(ones),
        ones,
        n,
    )
    count = np.bincount(table.rater, minlength=n)
    used = np.bincount(g, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        leniency = np.bincount(g, score - other, minlength=n) / used
        mean = np.bincount(table.rater, table.score, minlength=n) / count
        var = np.bincount(table.rater, table.score**2, minlength=n) / count - mean**2
    extreme = np.isin(table.score, EXTREMES)
    return {
        "items": count,
        "rho": rho,
        "leniency": np.where(used > 0, leniency, np.nan),
        "straight": (count >= MIN_ITEMS) & (var < 1e-12),
        "extreme": (count >= MIN_ITEMS) & (np.bincount(table.rater, extreme, n) == count),
    }


def _medians(rater: np.ndarray, seconds: np.ndarray, n: int) -> np.ndarray:
    out = np.full(n, np.nan)
    ok = ~np.isnan(seconds)
    order = np.argsort(rater[ok], kind="stable")
    r, s = rater[ok][order], seconds[ok][order]
    cuts = np.flatnonzero(np.diff(r)) + 1
    for chunk_r, chunk_s in zip(np.split(r, cuts), np.split(s, cuts)):
        if len(chunk_r):
            out[chunk_r[0]] = float(np.median(chunk_s))
    return out


def _flags(row: RaterRow) -> list[str]:
    flags = []
    if row.items >= MIN_ITEMS and (row.correlation is None or row.correlation < LOW_CORRELATION):
        flags.append("low correlation")
    if row.leniency is not None and abs(row.leniency) >= LENIENCY:
        flags.append("lenient" if row.leniency > 0 else "harsh")
    if row.straight_lining:
        flags.append("straight-lining")
    if row.extreme_only:
        flags.append("extremes only")
    if row.median_seconds is not None and row.median_seconds < FAST_SECONDS:
        flags.append("fast")
    if row.participant and row.participant.get("failed_attention"):
        flags.append("failed attention check")
    return flags


def _nan_none(value) -> float | None:
    return None if value is None or np.isnan(value) else float(value)


def rater_rows(ratings: QuerySet[Rating]) -> list[RaterRow]:
    """Every rater of the given ratings, most flags first (4 queries)."""
    table, rater_ids, seconds = _fetch(ratings)
    if not len(rater_ids):
        return []
    n = len(rater_ids)
    stats = _per_rater(table, n)
    medians = _medians(table.rater, seconds, n)
    raters = Rater.objects.filter(id__in=Subquery(ratings.order_by().values("rater_id")))
    info = {r[0]: r[1:] for r in raters.values_list("id", "pseudonym", "kind")}
    participants = participant_info(ratings)
    rows = []
    for code, rater_id in enumerate(rater_ids.tolist()):
        row = RaterRow(
            rater_id=rater_id,
            pseudonym=info.get(rater_id, ("", ""))[0],
            kind=info.get(rater_id, ("", ""))[1],
            items=int(stats["items"][code]),
            median_seconds=_nan_none(medians[code]),
            correlation=_nan_none(stats["rho"][code]),
            leniency=_nan_none(stats["leniency"][code]),
            straight_lining=bool(stats["straight"][code]),
            extreme_only=bool(stats["extreme"][code]),
            participant=participants.get(rater_id),
        )
        row.flags = _flags(row)
        rows.append(row)
    return sorted(rows, key=lambda r: (-len(r.flags), r.rater_id))


def attention_fields() -> list[str]:
    """Attention-check fields on Participant, if the studies app has any (else none)."""
    from studies.models import Participant

    return [
        f.name
        for f in Participant._meta.concrete_fields
        if "attention" in f.name and not f.is_relation
    ]


def participant_info(ratings: QuerySet[Rating]) -> dict[int, dict]:
    """Study participation of the raters (1 query): study, status and any attention-check
    fields the studies app exposes on Participant."""
    from studies.models import Participant

    extra = attention_fields()
    rows = Participant.objects.filter(
        rater_id__in=Subquery(ratings.order_by().values("rater_id"))
    ).values("rater_id", "status", "study__slug", *extra)
    out = {}
    for row in rows:
        row["attention"] = {name: row[name] for name in extra}
        row["failed_attention"] = any(
            "fail" in name and bool(value) for name, value in row["attention"].items()
        )
        out[row["rater_id"]] = row
    return out


def active_exclusions() -> list[RaterExclusion]:
    return list(
        RaterExclusion.objects.filter(revoked_at__isnull=True)
        .select_related("rater", "created_by")
        .order_by("-created_at")
    )
