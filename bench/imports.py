"""Benchmark: how long each data import takes, the first time and again with the same file.

On a scratch database (PostgreSQL ``<name>_bench_imports`` when DATABASE_URL points to
PostgreSQL, else a scratch SQLite file), migrated empty, it times with the services the
management commands call:

1. AmbiStory train and dev (``ambistory_import``: homonyms, senses, setups, stories,
   samples and every individual rating),
2. RAW-C (``rawc_import``: 672 sentence pairs and 8,624 judgments),
3. sense choice (``sense_choice_import``): the FOOL sample's 60 items copied ``--copies``
   times with their own ids and sentences (2,400 items at the default 40),

each once into the empty database and once more (nothing new: the import must write no row,
which is checked). For each it prints the wall and CPU seconds of this process and the CPU
seconds as a multiple of the machine's reference loop measured in the same run
(``bench/load/cpu.py``'s ``pace_ms``, before and after), so runs on machines of different
speed compare: two runs of the same code on this 2-core machine differ by up to a third in
seconds when the host runs it at its slower pace (docs/performance.md).

    python bench/imports.py [--copies 40] [--keep]
    python bench/imports.py --smoke   # CI: dev's first 6 homonyms, RAW-C, 2 copies
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "load"))

from cpu import pace_ms  # noqa: E402  (bench/load is on the path)
from scratch import drop_scratch, scratch_database_url, setup_django, smoke_subset  # noqa: E402

DATA = ROOT / "data"


def row_counts() -> dict[str, int]:
    from annotations.models import Rating, Sample, Setup, Story

    return {m.__name__: m.objects.count() for m in (Setup, Story, Sample, Rating)}


def timed(run) -> tuple[float, float]:
    """Wall and CPU seconds of ``run()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def sense_choice_copies(copies: int) -> dict:
    """The FOOL sample with its items ``copies`` times, each copy with its own ids and
    sentences (so every copy is new to the database)."""
    doc = json.loads((DATA / "fool" / "fool-sample.json").read_text(encoding="utf-8"))
    items = []
    for k in range(copies):
        for item in doc["items"]:
            clone = copy.deepcopy(item)
            clone["id"] = f"{item['id']}-copy{k}"
            clone["context"] = f"{item['context']} (copy {k})"
            items.append(clone)
    return doc | {"items": items}


def imports(smoke: bool, copies: int) -> list[tuple[str, object]]:
    """(name, a function that imports it) in the order run."""
    from annotations.importers import ambistory_import, parse_ambistory
    from annotations.rawc import load_rawc, rawc_import
    from annotations.sensechoice import parse_sense_choice, sense_choice_import

    def ambistory(split: str):
        doc = json.loads((DATA / "ambistory" / f"{split}.json").read_text(encoding="utf-8"))
        samples = parse_ambistory(doc)
        if smoke:
            kept = {s["homonym"] for s in smoke_subset([{"homonym": p.homonym} for p in samples])}
            samples = [p for p in samples if p.homonym in kept]
        return lambda: ambistory_import(samples=samples, split=split)

    rawc = load_rawc(DATA / "rawc")
    choice = parse_sense_choice(sense_choice_copies(copies))
    steps = [] if smoke else [("AmbiStory train", ambistory("train"))]
    return steps + [
        ("AmbiStory dev", ambistory("dev")),
        ("RAW-C", lambda: rawc_import(data=rawc)),
        (f"sense choice ({len(choice.items):,} items)", lambda: sense_choice_import(data=choice)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=40, help="copies of the FOOL sample")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument("--smoke", action="store_true", help="CI size, seconds")
    args = parser.parse_args(argv)
    copies = 2 if args.smoke else args.copies
    url = scratch_database_url("imports")
    setup_django(url, DEBUG="1")
    from django.db import connection

    reference_before = pace_ms()
    print(f"database: {connection.vendor}; reference loop {reference_before} ms CPU before")
    print("| import | run | wall s | CPU s | CPU in reference loops | rows written |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    failed = False
    try:
        for name, run in imports(args.smoke, copies):
            for attempt in ("first", "again"):
                before = row_counts()
                wall, cpu = timed(run)
                after = row_counts()
                written = {k: after[k] - before[k] for k in after if after[k] != before[k]}
                shown = ", ".join(f"{k} +{v:,}" for k, v in written.items()) or "none"
                loops = cpu * 1000 / reference_before
                print(f"| {name} | {attempt} | {wall:.2f} | {cpu:.2f} | {loops:.0f} | {shown} |")
                if attempt == "again" and written:
                    print(f"ERROR: importing {name} again wrote rows: {shown}")
                    failed = True
                if attempt == "first" and not written.get("Sample"):
                    print(f"ERROR: the first import of {name} wrote no sample")
                    failed = True
        print(f"reference loop {pace_ms()} ms CPU after (bench/load/cpu.py pace_ms)")
    finally:
        if not args.keep:
            drop_scratch(url)
        else:
            print(f"kept: {url}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
