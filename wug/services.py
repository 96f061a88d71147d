"""Writes of the WUG app: importing word folders (atomic, idempotent) and clustering."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from django.db import transaction

from predictions.backends import get_backend
from wug.annotators import DEFAULT_BACKEND
from wug.formats import (
    JUDGMENTS,
    SENSES,
    USES,
    Table,
    WordFiles,
    parse_judgment,
    parse_span,
    render_table,
)
from wug.models import GraphType, Judgment, ModelAnnotation, Use, Word, WordSense


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


def _create_word(files: WordFiles, digest: str) -> Word:
    layout = {
        name: {"columns": t.columns, "newline": t.newline} for name, t in _tables(files).items()
    }
    graph_type = GraphType.USAGE_SENSE if files.senses is not None else GraphType.USAGE_USAGE
    word = Word.objects.create(
        name=files.name, lemma=files.lemma, graph_type=graph_type, layout=layout, digest=digest
    )
    uses = []
    for i, row in enumerate(files.uses.rows):
        t_start, t_end = _span(row["indexes_target_token"])
        assert t_start is not None and t_end is not None  # required and checked on reading
        s_start, s_end = _span(row.get("indexes_target_sentence", ""))
        uses.append(
            Use(
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
        )
    by_use = {u.identifier: u for u in Use.objects.bulk_create(uses)}
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
    Judgment.objects.bulk_create(_judgments(word, files, by_use, by_sense))
    return word


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
    files is left as it is; with other files it is refused (naming it) unless ``replace``."""
    report = ImportReport()
    for files in words:
        digest = files_digest(files)
        existing = Word.objects.filter(name=files.name).first()
        state = "created"
        if existing is not None:
            if existing.digest == digest:
                report.words[files.name] = (
                    len(files.uses.rows),
                    len(files.judgments.rows),
                    "unchanged",
                )
                continue
            if not replace:
                raise WugImportError(
                    f"{files.name}: already imported with other files; nothing was imported "
                    "(--replace replaces it)"
                )
            existing.delete()
            state = "replaced"
        _create_word(files, digest)
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
