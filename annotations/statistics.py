"""Planner statistics after an import of rated data: every table the import writes.

``ambisite.db.statistics.analyze_after_commit`` refreshes the statistics of the tables it is
given; an import of AmbiStory, RAW-C or sense choice writes the texts (homonyms, setups,
stories, senses, sense candidates) as well as samples, raters and ratings, and every
dashboard reads ratings through the texts (a rating counts when it was given on the current
version of its setup, story and sense: ``annotations.models.current_ratings``). With only the
samples and ratings analysed, the planner took a never-analysed story and setup table for a
few rows and joined the 14,386 train+dev ratings to them by nested loops (35 ms of the
agreement intervals' 100 ms in the first minute after an import, when the precompute runs;
docs/performance-log.md, "Statistics for every imported table")."""

from __future__ import annotations

from ambisite.db.statistics import analyze_after_commit

from .models import Homonym, Rater, Rating, Sample, Sense, SenseCandidate, Setup, Story

IMPORTED_TABLES = (Homonym, Setup, Story, Sense, SenseCandidate, Sample, Rater, Rating)


def analyze_imported(rows: int) -> bool:
    """``ANALYZE`` every table an import writes once it commits, when it wrote ``rows``
    new rows (at least ``BULK_ROWS``); whether it was scheduled."""
    return analyze_after_commit(rows, *IMPORTED_TABLES)
