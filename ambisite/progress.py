"""Progress of long work: the rate and time-left maths (one home, used by the model-run
worker for the run page) and the progress lines that long management commands print.

Pure: no Django, no database; a command hands in its stderr (or None with ``-v 0``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


class Writer(Protocol):
    def write(self, text: str, /) -> object: ...


@dataclass
class Progress:
    """Rate and time left for one execution; ``done_at_start`` excludes resumed work."""

    total: int
    done_at_start: int = 0
    started: float = field(default_factory=time.monotonic)

    def rate(self, done: int, now: float | None = None) -> float | None:
        elapsed = (time.monotonic() if now is None else now) - self.started
        made = done - self.done_at_start
        if made <= 0 or elapsed <= 0:
            return None
        return made / elapsed

    def eta(self, done: int, now: float | None = None) -> float | None:
        rate = self.rate(done, now)
        return None if rate is None else max(0, self.total - done) / rate


def clock_text(seconds: float) -> str:
    """``0:07``, ``12:30``, ``1:02:03``."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def progress_line(label: str, done: int, progress: Progress, now: float | None = None) -> str:
    """``predict: 320/1200 (27%), 41.2/s, ETA 0:21`` (rate and ETA once there is a rate)."""
    total = progress.total
    percent = f" ({100 * done / total:.0f}%)" if total else ""
    line = f"{label}: {done}/{total}{percent}"
    rate = progress.rate(done, now)
    if rate is not None:
        line += f", {rate:.1f}/s"
        if done < total:
            line += f", ETA {clock_text(progress.eta(done, now) or 0)}"
    return line


class ProgressLog:
    """Prints :func:`progress_line` to ``stream`` at most every ``every`` items or
    ``seconds`` (whichever comes first) and always at the end; ``stream=None`` prints
    nothing. Call it with the running count of items done."""

    def __init__(
        self,
        stream: Writer | None,
        total: int,
        *,
        label: str,
        every: int | None = None,
        seconds: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.stream = stream
        self.label = label
        self.clock = clock
        self.progress = Progress(total=total, started=clock())
        self.every = every or max(1, -(-total // 10))  # about ten lines for the whole job
        self.seconds = seconds
        self._next = self.every
        self._last = self.progress.started

    def __call__(self, done: int) -> None:
        now = self.clock()
        due = done >= self._next or now - self._last >= self.seconds
        if self.stream is None or not (due or done >= self.progress.total):
            return
        while self._next <= done:
            self._next += self.every
        self._last = now
        self.stream.write(progress_line(self.label, done, self.progress, now) + "\n")
        flush = getattr(self.stream, "flush", None)
        if flush is not None:
            flush()


class _Unstyled:
    """A management command's stderr without its error styling (progress is not an error)."""

    def __init__(self, wrapper: Any):
        self.wrapper = wrapper

    def write(self, text: str) -> None:
        self.wrapper.write(text, style_func=str, ending="")

    def flush(self) -> None:
        self.wrapper.flush()


def command_progress(
    command: Any, verbosity: int, total: int, *, label: str, **options: Any
) -> ProgressLog:
    """A :class:`ProgressLog` on ``command``'s stderr; silent with ``--verbosity 0``."""
    stream = _Unstyled(command.stderr) if verbosity > 0 else None
    return ProgressLog(stream, total, label=label, **options)


def command_steps(command: Any, verbosity: int, *, label: str) -> Callable[[int, int], None]:
    """An ``on_step(done, total)`` callback for work whose total is known only once it
    starts (training steps, rows to write): the first call sets up the progress lines."""
    lines: ProgressLog | None = None

    def on_step(done: int, total: int) -> None:
        nonlocal lines
        if lines is None:
            lines = command_progress(command, verbosity, total, label=label)
        lines(done)

    return on_step
