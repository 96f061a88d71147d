"""The bulk data bench/dashboards.py times the pages on: a synthetic study's structure (setups,
stories, samples), its participants in batches and their ratings, two model runs, written
with COPY on PostgreSQL (else bulk inserts). The column lists come from the models: a column
the bench does not give gets the model's default, and one without a default stops the bench
naming it."""

from __future__ import annotations


def model_columns(model, given: list[str]) -> tuple[list[str], tuple]:
    """The columns a bulk insert of ``model`` writes: ``given`` (in that order) and then every
    other concrete column with its model default, so that a column added to the model later
    is filled as ``Model.objects.create`` would fill it. A column that is NOT NULL and has no
    default stops the bench with a message naming it (the bench must then give it)."""
    from django.db import connection
    from django.db.models import NOT_PROVIDED
    from django.utils.timezone import now

    by_column = {f.column: f for f in model._meta.concrete_fields}
    unknown = [c for c in given if c not in by_column]
    if unknown:
        raise SystemExit(f"bench/dashboards.py: {model._meta.db_table} has no column {unknown}")
    columns, defaults = list(given), []
    for column, field in by_column.items():
        if column in given or field.primary_key or field.db_default is not NOT_PROVIDED:
            continue
        value = field.get_default()
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            value = now()
        if value is None and not field.null:
            raise SystemExit(
                f"bench/dashboards.py: {model._meta.db_table}.{column} is NOT NULL and has no "
                "default: give it a value in the bench's rows"
            )
        columns.append(column)
        defaults.append(field.get_db_prep_save(value, connection))
    return columns, tuple(defaults)


def fast_insert(kind: str, model, given: list[str], rows) -> None:
    """Rows of ``given`` columns into ``model``'s table, other columns at their model
    defaults: COPY on PostgreSQL, executemany in one transaction on SQLite."""
    from django.db import connection, transaction

    table = model._meta.db_table
    columns, defaults = model_columns(model, given)
    full = (tuple(row) + defaults for row in rows)
    with transaction.atomic(), connection.cursor() as cursor:
        if kind == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in full:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(columns))
            sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
            batch = []
            for row in full:
                batch.append(row)
                if len(batch) == 50_000:
                    cursor.executemany(sql, batch)
                    batch = []
            if batch:
                cursor.executemany(sql, batch)


def next_id(model) -> int:
    from django.db.models import Max

    return (model.objects.aggregate(m=Max("id"))["m"] or 0) + 1


def reset_sequences(models) -> None:
    from django.core.management.color import no_style
    from django.db import connection

    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(sql)


def build_structure(kind: str, n_samples: int, split_id: int) -> tuple[int, int]:
    """Homonyms, senses, setups, stories and samples; returns (first sample id, n_setups)."""
    from annotations.models import Homonym, Sample, Sense, Setup, Story

    n_setups = -(-n_samples // 6)
    n_hom = max(1, n_setups // 8)
    h0, se0, st0, so0, sa0 = (next_id(m) for m in (Homonym, Sense, Setup, Story, Sample))
    fast_insert(kind, Homonym, ["id", "form"], ((h0 + k, f"syn{k}") for k in range(n_hom)))
    fast_insert(
        kind,
        Sense,
        ["id", "homonym_id", "gloss", "example_sentence"],
        (
            (se0 + 2 * k + j, h0 + k, f"sense {j} of syn{k}", f"The syn{k} ({j}).")
            for k in range(n_hom)
            for j in range(2)
        ),
    )
    fast_insert(
        kind,
        Setup,
        ["id", "homonym_id", "precontext", "sentence"],
        (
            (
                st0 + i,
                h0 + i % n_hom,
                f"Synthetic story {i} begins here.",
                f"Then the syn{i % n_hom} appeared ({i}).",
            )
            for i in range(n_setups)
        ),
    )
    fast_insert(
        kind,
        Story,
        ["id", "setup_id", "ending"],
        (
            (so0 + 3 * i + e, st0 + i, "" if e == 0 else f"Ending {e} of story {i}.")
            for i in range(n_setups)
            for e in range(3)
        ),
    )

    def samples():
        for pos in range(n_samples):
            setup, cell = divmod(pos, 6)
            story, sense = divmod(cell, 2)
            yield (
                sa0 + pos,
                split_id,
                so0 + 3 * setup + story,
                se0 + 2 * (setup % n_hom) + sense,
                str(pos),
                f"syn-{pos}",
                pos,
            )

    fast_insert(
        kind,
        Sample,
        ["id", "split_id", "story_id", "sense_id", "dataset_id", "sample_id", "position"],
        samples(),
    )
    reset_sequences([Homonym, Sense, Setup, Story, Sample])
    return sa0, n_setups


def build_raters(kind: str, n_batches: int, per_sample: int):
    """Participants: each batch of samples is rated by its own ``per_sample`` raters."""
    from django.utils import timezone

    from annotations.models import Rater
    from studies.models import Participant, Study

    study = Study.objects.create(
        slug="synthetic-bench",
        title="Synthetic bench study",
        status="closed",
        completion_code="C",
        screenout_code="S",
    )
    r0 = next_id(Rater)
    now = timezone.now()
    n_raters = n_batches * per_sample
    fast_insert(
        kind,
        Rater,
        ["id", "kind", "pseudonym", "created_at"],
        ((r0 + k, "participant", f"syn-participant-{k}", now) for k in range(n_raters)),
    )
    reset_sequences([Rater])
    Participant.objects.bulk_create(
        [
            Participant(study=study, rater_id=r0 + k, prolific_pid=f"SYN{k:07d}", status="finished")
            for k in range(n_raters)
        ],
        batch_size=5000,
    )
    return study, r0, n_raters


def build_study(kind: str, *, n_samples: int, per_sample: int, batch: int = 30) -> dict:
    """A synthetic study: latent sample means, ratings around them, two model runs."""
    import datetime as dt

    import numpy as np
    from django.utils import timezone

    from annotations.models import Dataset, Rating, Split
    from predictions.models import ModelRun, Prediction
    from studies.models import StudySample

    rng = np.random.default_rng(11)
    dataset = Dataset.objects.create(name="synthetic", title="Synthetic bench data")
    split = Split.objects.create(dataset=dataset, name="synthetic")
    sa0, _ = build_structure(kind, n_samples, split.id)
    n_batches = -(-n_samples // batch)
    study, r0, n_raters = build_raters(kind, n_batches, per_sample)
    fast_insert(
        kind,
        StudySample,
        ["study_id", "sample_id"],
        ((study.id, sa0 + pos) for pos in range(n_samples)),
    )
    truth = rng.uniform(1, 5, n_samples)
    scores = np.clip(np.rint(truth[:, None] + rng.normal(0, 1, (n_samples, per_sample))), 1, 5)
    seconds = rng.gamma(4, 3, (n_samples, per_sample))
    start = timezone.now() - dt.timedelta(days=1)

    def ratings():
        for pos in range(n_samples):
            first_rater = r0 + (pos // batch) * per_sample
            for k in range(per_sample):
                began = start + dt.timedelta(seconds=pos % batch * 20)
                done = began + dt.timedelta(seconds=float(seconds[pos, k]))
                yield (
                    sa0 + pos,
                    first_rater + k,
                    int(scores[pos, k]),
                    False,
                    "",
                    None,
                    began,
                    done,
                    done,
                )

    fast_insert(
        kind,
        Rating,
        [
            "sample_id",
            "rater_id",
            "score",
            "nonsensical",
            "comment",
            "position",
            "started_at",
            "created_at",
            "updated_at",
        ],
        ratings(),
    )
    now = timezone.now()
    for name, noise in (("synthetic-good", 0.7), ("synthetic-noisy", 1.5)):
        run = ModelRun.objects.create(
            name=name,
            backend="import",
            split=split,
            status="succeeded",
            done=n_samples,
            total=n_samples,
        )
        preds = np.clip(truth + rng.normal(0, noise, n_samples), 1, 5)
        fast_insert(
            kind,
            Prediction,
            ["run_id", "sample_id", "score", "raw_output", "created_at"],
            ((run.id, sa0 + pos, float(preds[pos]), "", now) for pos in range(n_samples)),
        )
    if kind == "postgresql":
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    from annotations.data_versions import data_changed

    data_changed(kind="plausibility")  # written past the importers: say so as they do
    return {
        "samples": n_samples,
        "ratings": Rating.objects.count(),
        "raters": n_raters,
        "predictions": Prediction.objects.filter(run__split=split).count(),
    }
