"""What every import command does with its errors (one rule): a file it cannot read and a
file in the wrong format both stop it with a ``CommandError`` that names the file and says
that nothing was imported (the imports are atomic)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.management.base import CommandError


@contextmanager
def import_errors(
    path: str, refused: type[Exception] | tuple[type[Exception], ...], *, name_path: bool = True
) -> Iterator[None]:
    """Inside it, ``OSError`` is "cannot read PATH" and a ``refused`` error is "PATH: why;
    nothing was imported" (without ``PATH:`` for errors that name their own file:
    ``name_path=False``)."""
    try:
        yield
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc}") from exc
    except refused as exc:
        where = f"{path}: " if name_path else ""
        raise CommandError(f"{where}{exc}; nothing was imported") from exc
