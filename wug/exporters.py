"""The WUG format written back: a folder per word, the same files and bytes as imported,
plus the crowd's judgments since (``wug.crowd_reads.crowd_rows``, after the imported rows)."""

from __future__ import annotations

from pathlib import Path

from wug.crowd_reads import crowd_rows
from wug.formats import JUDGMENTS, SENSES, USES, render_table
from wug.models import Judgment, Use, Word, WordSense


def word_files(word: Word) -> dict[str, str]:
    """File name -> text for one word, columns and line endings as imported."""
    rows = {
        USES: [u.fields for u in Use.objects.filter(word=word).order_by("position")],
        JUDGMENTS: [j.fields for j in Judgment.objects.filter(word=word).order_by("position")]
        + crowd_rows(word, word.layout[JUDGMENTS]["columns"]),
    }
    if SENSES in word.layout:
        rows[SENSES] = [s.fields for s in WordSense.objects.filter(word=word).order_by("position")]
    return {
        name: render_table(word.layout[name]["columns"], table, word.layout[name]["newline"])
        for name, table in rows.items()
    }


def export_words(words, folder: Path) -> list[Path]:
    """Write ``folder/<graph type>/<word>/`` for each word; returns the word folders."""
    written = []
    for word in words:
        target = folder / word.graph_type / word.name
        target.mkdir(parents=True, exist_ok=True)
        for name, text in word_files(word).items():
            with open(target / name, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        written.append(target)
    return written
