"""Progress of long work: the rate/ETA maths, the progress lines, and the commands that print
them to stderr (predict, import_ambistory, train_crossencoder --now), silent with -v 0."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import call_command

from ambisite.progress import Progress, ProgressLog, clock_text, progress_line
from tests.factories import ambistory_setup

LINE = re.compile(r"^(?P<label>[^:]+): (?P<done>\d+)/(?P<total>\d+) \(\d+%\)")


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_says_done_total_rate_and_time_left():
    progress = Progress(total=1200, started=0.0)
    assert progress_line("predict", 300, progress, now=10.0) == (
        "predict: 300/1200 (25%), 30.0/s, ETA 0:30"
    )
    assert progress_line("predict", 0, progress, now=0.0) == "predict: 0/1200 (0%)"
    done = progress_line("predict", 1200, progress, now=40.0)
    assert done == "predict: 1200/1200 (100%), 30.0/s"
    assert clock_text(3723) == "1:02:03" and clock_text(7.4) == "0:07"


def test_lines_come_every_tenth_of_the_work_or_every_ten_seconds_and_at_the_end():
    clock, out = Clock(), io.StringIO()
    log = ProgressLog(out, 100, label="work", clock=clock)
    for done in range(1, 100):
        clock.now += 0.01
        log(done)
    clock.now += 20
    log(100)
    counts = [int(LINE.match(line)["done"]) for line in out.getvalue().splitlines()]
    assert counts == [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]

    slow, out = Clock(), io.StringIO()
    log = ProgressLog(out, 1000, label="slow", clock=slow, seconds=10)
    for done in (1, 2, 3):
        slow.now += 11  # each item takes longer than the interval: every one is reported
        log(done)
    assert len(out.getvalue().splitlines()) == 3


def test_no_stream_prints_nothing():
    log = ProgressLog(None, 5, label="quiet")
    for done in range(1, 6):
        log(done)  # nothing to check but that it does not fail


def lines_of(stream: io.StringIO, label: str) -> list[tuple[int, int]]:
    found = [LINE.match(line) for line in stream.getvalue().splitlines()]
    return [(int(m["done"]), int(m["total"])) for m in found if m and m["label"] == label]


@pytest.mark.django_db
def test_predict_prints_progress_to_stderr_and_is_quiet_at_verbosity_0(tmp_path):
    source = tmp_path / "in.json"
    source.write_text(json.dumps({**ambistory_setup(0), **ambistory_setup(6, homonym="bat")}))
    args = ["predict", "--backend", "random", "--input", str(source)]
    args += ["--output", str(tmp_path / "out.jsonl"), "--params", '{"batch_size": 2}']
    out, err = io.StringIO(), io.StringIO()

    call_command(*args, stdout=out, stderr=err)

    lines = lines_of(err, "predict")
    assert lines[-1] == (12, 12) and len(lines) >= 5
    assert [done for done, _ in lines] == sorted(done for done, _ in lines)
    assert "12 predictions written" in out.getvalue()  # stdout keeps only the result
    quiet = io.StringIO()
    call_command(*args, "--verbosity", "0", stdout=io.StringIO(), stderr=quiet)
    assert quiet.getvalue() == ""


@pytest.mark.django_db
def test_import_ambistory_prints_progress_of_the_ratings(tmp_path):
    source = tmp_path / "dev.json"
    data = {}
    for k in range(40):  # 240 samples, 5 ratings each: 1,200 ratings in two writes
        data.update(ambistory_setup(len(data), homonym=f"word{k}"))
    source.write_text(json.dumps(data))
    err = io.StringIO()

    args = ["import_ambistory", str(source), "--split", "dev"]
    call_command(*args, stdout=io.StringIO(), stderr=err)

    assert "import: read 240 samples" in err.getvalue()
    assert lines_of(err, "import (ratings)") == [(1000, 1200), (1200, 1200)]


@pytest.mark.ml
@pytest.mark.django_db
def test_train_now_prints_progress_over_the_optimiser_steps(settings, tmp_path):
    pytest.importorskip("torch")
    from tests.predictions.runhelpers import small_split

    settings.ARTIFACT_ROOT = tmp_path / "artifacts"
    small_split("train", setups=2)
    err = io.StringIO()
    params = '{"epochs": 1, "limit": 8, "max_seq_length": 64, "batch_size": 4}'
    call_command(
        "train_crossencoder", "--now", "--params", params, stdout=io.StringIO(), stderr=err
    )
    lines = lines_of(err, "train (optimiser steps)")
    assert lines and lines[-1][0] == lines[-1][1] > 1
