"""Writes of the WUG app: importing word folders (atomic, idempotent) and clustering."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from django.db import models, transaction

from annotations.import_limits import length_problem
from predictions.backends import get_backend
from wug.annotators import DEFAULT_BACKEND
from wug.crowd_reads import crowd_judgments
from wug.formats import (
    JUDGMENTS,
    SENSES,
    USES,
    Table,
    WordFiles,
    WugFormatError,
    parse_judgment,
    parse_span,
    render_table,
)
from wug.models import (
    CrowdStudy,
    GoldPair,
    GraphType,
    Judgment,
    ModelAnnotation,
    Use,
    UsePair,
    Word,
    WordSense,
)

POSITION_SHIFT = 10_000_000  # kept uses move out of the way of the new positions first
# The columns stored in a length-bound field, by file: column -> (model, field). PostgreSQL
# refuses an over-long value with a DataError that names neither file nor line.
BOUNDED: dict[str, dict[str, tuple[type[models.Model], str]]] = {
    USES: {"identifier": (Use, "identifier"), "grouping": (Use, "grouping"),
           "date": (Use, "date"), "lemma": (Word, "lemma")},
    JUDGMENTS: {"annotator": (Judgment, "annotator")},
    SENSES: {"identifier_sense": (WordSense, "identifier")},
}  # fmt: skip


class WugImportError(ValueError):
    """An import that cannot be done as asked; nothing was written."""


@dataclass
class ImportReport:
    """Per word: ``(uses, judgments, state)`` with state ``created``, ``replaced`` or
    ``unchanged``."""

    words: dict[str, tuple[int, int, str]] = field(default_factory=dict)

    @property
    def created(self) -> int:
        return sum(1 for *_, state in self.words.values() if state != "unchanged")


def _tables(files: WordFiles) -> dict[str, Table]:
    tables = {USES: files.uses, JUDGMENTS: files.judgments}
    if files.senses is not None:
        tables[SENSES] = files.senses
    return tables


def check_lengths(files: WordFiles) -> None:
    """Every value fits the field it is stored in (``annotations.import_limits``' rule), else a
    :class:`WugFormatError` naming the file, line and column."""
    problem = length_problem(files.name, Word, "name")
    if problem:
        raise WugFormatError(f"{files.name[:40]}: the word folder's name {problem}")
    for name, table in _tables(files).items():
        for i, row in enumerate(table.rows):
            for column, (model, field_name) in BOUNDED[name].items():
                value = row.get(column, "")
                value = value.strip() if column in ("grouping", "date") else value  # as stored
                problem = length_problem(value, model, field_name)
                if problem:
                    raise WugFormatError(f"{table.where(i, column)}: {problem}")


def files_digest(files: WordFiles) -> str:
    digest = hashlib.sha256()
    for name, table in sorted(_tables(files).items()):
        digest.update(name.encode())
        digest.update(render_table(table.columns, table.rows, table.newline).encode())
    return digest.hexdigest()


def _span(value: str) -> tuple[int | None, int | None]:
    """An optional ``start:end`` column, read by the format's own rule (checked on reading)."""
    if not value.strip():
        return None, None
    return parse_span(value, "span")


def _layout(files: WordFiles) -> dict:
    return {
        name: {"columns": t.columns, "newline": t.newline} for name, t in _tables(files).items()
    }


def _graph_type(files: WordFiles) -> str:
    return GraphType.USAGE_SENSE if files.senses is not None else GraphType.USAGE_USAGE


def _use(word: Word, i: int, row: dict[str, str]) -> Use:
    t_start, t_end = _span(row["indexes_target_token"])
    assert t_start is not None and t_end is not None  # required and checked on reading
    s_start, s_end = _span(row.get("indexes_target_sentence", ""))
    return Use(
        word=word,
        position=i,
        identifier=row["identifier"],
        grouping=row.get("grouping", "").strip(),
        date=row.get("date", "").strip(),
        context=row["context"],
        target_start=t_start,
        target_end=t_end,
        sentence_start=s_start,
        sentence_end=s_end,
        fields=row,
    )


def _same_text(a: Use, b: Use) -> bool:
    """Whether two rows of a use show a judge the same thing (context and spans)."""
    keys = ("context", "target_start", "target_end", "sentence_start", "sentence_end")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def _create_word(files: WordFiles, digest: str) -> Word:
    word = Word.objects.create(
        name=files.name,
        lemma=files.lemma,
        graph_type=_graph_type(files),
        layout=_layout(files),
        digest=digest,
    )
    uses = [_use(word, i, row) for i, row in enumerate(files.uses.rows)]
    by_use = {u.identifier: u for u in Use.objects.bulk_create(uses)}
    _create_rest(word, files, by_use)
    return word


def _create_rest(word: Word, files: WordFiles, by_use: dict[str, Use]) -> None:
    """The word's senses and judgments (its uses are written)."""
    senses = [
        WordSense(
            word=word,
            position=i,
            identifier=row["identifier_sense"],
            description=row["description_sense"],
            fields=row,
        )
        for i, row in enumerate(files.senses.rows if files.senses is not None else [])
    ]
    by_sense = {s.identifier: s for s in WordSense.objects.bulk_create(senses)}
    judgments = _judgments(word, files, by_use, by_sense)
    live = {(j.use1, j.use2, j.annotator, float(j.score)) for j in crowd_judgments(word)}
    if live:  # the crowd's judgments are read live: an export's copy is not imported again
        judgments = [
            j
            for j in judgments
            if j.use2 is None
            or (j.use1.identifier, j.use2.identifier, j.annotator, float(j.score)) not in live
        ]
    Judgment.objects.bulk_create(judgments)


def _linked_uses(word: Word) -> dict[int, str]:
    """Use id -> the slug of a crowd study whose pairs or gold pairs hold it."""
    out: dict[int, str] = {}
    pairs = UsePair.objects.filter(word=word).values_list(
        "use1_id", "use2_id", "round__crowd_study__study__slug"
    )
    golds = GoldPair.objects.filter(use1__word=word).values_list(
        "use1_id", "use2_id", "question__study__slug"
    )
    for a, b, slug in [*pairs, *golds]:
        out.setdefault(a, slug)
        out.setdefault(b, slug)
    return out


def _replace_word(word: Word, files: WordFiles, digest: str) -> None:
    """Replace a word in place: uses whose identifier, context and spans are unchanged keep
    their rows (so crowd studies keep their pairs and gold pairs, and the crowd's judgments
    stay in the graph); the others, the senses and the imported judgments are written anew.
    Refused (naming the study and the use) when a use a crowd study asks about would go or
    change."""
    old = {u.identifier: u for u in Use.objects.filter(word=word)}
    new = [_use(word, i, row) for i, row in enumerate(files.uses.rows)]
    by_id = {u.identifier: u for u in new}
    linked = _linked_uses(word)
    for use in old.values():
        fresh = by_id.get(use.identifier)
        if use.pk in linked and (fresh is None or not _same_text(use, fresh)):
            what = "is not in the new uses.csv" if fresh is None else "has another text there"
            raise WugImportError(
                f"{word.name}: use {use.identifier!r} of crowd study {linked[use.pk]!r} {what}; "
                "replacing it would cut the study's judgments from the graph, so nothing was "
                "imported (keep the use as it was, or import the files under another name)"
            )
    kept = {i for i, u in old.items() if i in by_id and _same_text(u, by_id[i])}
    Judgment.objects.filter(word=word).delete()
    WordSense.objects.filter(word=word).delete()
    Use.objects.filter(word=word).exclude(identifier__in=kept).delete()
    Use.objects.filter(word=word).update(position=models.F("position") + POSITION_SHIFT)
    for use in new:
        if use.identifier in kept:
            use.pk = old[use.identifier].pk
    Use.objects.bulk_update(
        [u for u in new if u.pk], ["position", "grouping", "date", "fields"], batch_size=500
    )
    Use.objects.bulk_create([u for u in new if not u.pk])
    Word.objects.filter(pk=word.pk).update(
        lemma=files.lemma, graph_type=_graph_type(files), layout=_layout(files), digest=digest
    )
    word.refresh_from_db()
    _create_rest(word, files, {u.identifier: u for u in Use.objects.filter(word=word)})


def _judgments(word, files, by_use, by_sense) -> list[Judgment]:
    out = []
    usg = files.senses is not None
    for i, row in enumerate(files.judgments.rows):
        round_text = row.get("round", "").strip()
        out.append(
            Judgment(
                word=word,
                position=i,
                use1=by_use[row["identifier1"]],
                use2=None if usg else by_use[row["identifier2"]],
                sense=by_sense[row["identifier2"]] if usg else None,
                annotator=row["annotator"],
                score=parse_judgment(row["judgment"], files.judgments.where(i, "judgment")),
                comment=row.get("comment", "").strip(),
                round=int(round_text) if round_text else None,
                fields=row,
            )
        )
    return out


@transaction.atomic
def wug_import(*, words: list[WordFiles], replace: bool = False) -> ImportReport:
    """Import checked word folders in one transaction. A word already imported with the same
    files is left as it is; with other files it is refused (naming it) unless ``replace``,
    which keeps the unchanged uses of a word with crowd studies (``_replace_word``)."""
    report = ImportReport()
    for files in words:
        check_lengths(files)
    for files in words:
        digest = files_digest(files)
        existing = Word.objects.filter(name=files.name).first()
        if existing is None:
            _create_word(files, digest)
            state = "created"
        elif existing.digest == digest:
            state = "unchanged"
        elif not replace:
            raise WugImportError(
                f"{files.name}: already imported with other files; nothing was imported "
                "(--replace replaces it)"
            )
        elif CrowdStudy.objects.filter(words=existing).exists():
            _replace_word(existing, files, digest)  # keeps the uses crowd studies ask about
            state = "replaced"
        else:
            existing.delete()
            _create_word(files, digest)
            state = "replaced"
        report.words[files.name] = (len(files.uses.rows), len(files.judgments.rows), state)
    return report


@transaction.atomic
def model_annotation_create(*, word: Word, backend: str = DEFAULT_BACKEND) -> ModelAnnotation:
    """Queue a model annotator for ``word`` (enqueued on commit)."""
    if word.graph_type != GraphType.USAGE_USAGE:
        raise ValueError(f"{word.name}: a model annotator judges use pairs (usage-usage graphs)")
    get_backend(backend)  # an unknown backend is refused here, not in the worker
    annotation = ModelAnnotation.objects.create(word=word, backend=backend)

    def enqueue() -> None:
        from wug.tasks import annotate_word

        annotate_word.delay(annotation.pk)

    transaction.on_commit(enqueue)
    return annotation
