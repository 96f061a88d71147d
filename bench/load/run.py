"""``make bench-load``: AmbiSite and Potato 2.12.1 side by side under one loopback generator.

For each participant count (default 50, 200 and 1.2x the study's capacity), AmbiSite and then
Potato get a fresh study of the same AmbiStory samples and the same browsers (see
generator.py): Prolific arrival link, every form and redirect followed, scripts and
stylesheets fetched once per participant, no think time (`--think S`: S seconds on each item
before its answer, a person reading). Printed per run: sustained rated
items/s (between the 10th and 90th percentile of rating completion times), rating pair
latency p50/p95/p99, arrivals accepted/refused/errored, HTTP errors, CPU seconds of the web
server, of PostgreSQL and of the generator (and of everything else on the machine, to show
the load), AmbiSite's SQL integrity checks, and the ratios AmbiSite/Potato. Results go to
bench/results/load.json.

Bounded: at most 1000 participants a run, ``--timeout`` s a run; loopback only; every server
runs in its own process group, killed when its run ends, whatever happens.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> python bench/load/run.py \\
        [--participants 50,200,1.2x] [--tools ambisite,potato] [--sizes 3x4,2x4]
    DATABASE_URL=... python bench/load/run.py --smoke   # CI: AmbiSite, 4 participants
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import runpy
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import burst  # noqa: E402
import generator  # noqa: E402
import tool_ambisite  # noqa: E402
import tool_potato  # noqa: E402
from cpu import Meter  # noqa: E402


def free_bind() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the process group, SIGKILL if it lingers."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def drive(base: str, first_url: str, profile, participants: int, args, meter: Meter):
    """The participants against one server: all at once, or spread over ``--within`` s
    for a burst run (``args.within`` set by ``burst.plan``)."""
    asyncio.run(generator.wait_up(first_url))
    meter.start()
    within = getattr(args, "within_now", 0.0)
    stats = asyncio.run(
        generator.run(
            base,
            profile,
            participants,
            args.timeout,
            within,
            meter.mark_arrivals,
            think=getattr(args, "think", 0.0),
        )
    )
    return stats, meter.stop()


def report(stats: generator.Stats, cpu: dict) -> dict:
    out = generator.summary(stats)
    out["arrivals"] = {
        "accepted": stats.accepted,
        "refused": stats.refused,
        "refused_by_status": stats.refusals,
        "errored": stats.arrival_errors,
    }
    out["finished"], out["stopped"] = stats.finished, stats.stopped
    out["requests"], out["http_errors"] = stats.requests, stats.http_errors
    out["asset_errors"], out["retries"] = stats.asset_errors, stats.retries
    out["errors"] = stats.errors[:5]
    out["cpu"] = cpu
    out["rated_before_arrivals_done"] = (
        sum(1 for _, end in stats.pairs if end <= stats.arrivals_done)
        if stats.arrivals_done
        else None
    )
    n = max(1, out["rated_items"])
    out["cpu_ms_per_item"] = {
        k: round(cpu[f"{k}_s"] * 1000 / n, 2) for k in ("web", "postgresql", "generator")
    }
    return out


def run_ambisite(args, url: str, participants: int, capacity: int, size: str, client: str) -> dict:
    workers, threads = (int(x) for x in size.split("x"))
    run_url = tool_ambisite.fresh_run_database(url, participants)
    bind = free_bind()
    log = ROOT / "var" / "bench" / "ambisite-gunicorn.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    server = tool_ambisite.start(run_url, bind, workers, threads, log)
    try:
        meter = Meter(server.pid, run_url.rsplit("/", 1)[1], workers)
        profile = tool_ambisite.AmbiSiteProfile(client)
        first = profile.arrival_url(f"http://{bind}", 0).split("?")[0] + "guidelines/"
        stats, cpu = drive(f"http://{bind}", first, profile, participants, args, meter)
    finally:
        stop(server)
    # exactly, where the live replacements (cpu["replaced_workers"]) miss a worker recycled
    # twice
    cpu["replaced_workers"] = log.read_text(errors="replace").count("Autorestarting worker")
    out = report(stats, cpu)
    out["server"] = f"gunicorn {tool_ambisite.worker_class()} {size}, DEBUG=0, PostgreSQL"
    out["size"], out["client"] = size, client
    out["integrity"] = tool_ambisite.integrity(
        run_url, out["rated_items"], stats.refused > 0, capacity
    )
    out["integrity"]["ok"] = (
        out["integrity"]["ok"] and not stats.arrival_errors and not stats.stopped
    )
    return out


def run_potato(args, samples: dict, participants: int) -> dict:
    run_dir = tool_potato.prepare(
        ROOT / "var" / "bench" / "potato" / f"run-{participants}", samples
    )
    bind = free_bind()
    server = tool_potato.start(run_dir, bind, 1, args.potato_threads)
    try:
        meter = Meter(server.pid, None, 1)
        stats, cpu = drive(
            f"http://{bind}",
            f"http://{bind}/",
            tool_potato.PotatoProfile(),
            participants,
            args,
            meter,
        )
    finally:
        stop(server)
    out = report(stats, cpu)
    out["server"] = (
        f"gunicorn gthread 1x{args.potato_threads} (Potato's deployment), in memory + files"
    )
    out["stored"] = tool_potato.stored_ratings(run_dir)
    return out


def counts(spec: str, capacity: int) -> list[int]:
    found = []
    for part in spec.split(","):
        n = round(float(part[:-1]) * capacity) if part.endswith("x") else int(part)
        if not 1 <= n <= 1000:
            raise SystemExit(f"participants {n}: must be 1-1000")
        found.append(n)
    return found


def repo_size() -> str:
    """The workers x threads of the repo's gunicorn config (ambisite/gunicorn.conf.py, its
    defaults unless WEB_CONCURRENCY or GUNICORN_THREADS say otherwise here)."""
    conf = runpy.run_path(str(tool_ambisite.GUNICORN_CONFIG))
    return f"{conf['workers']}x{conf['threads']}"


def _switches(c: dict, r: dict) -> str:
    """The web threads' context switches per rated item (voluntary/involuntary), when known."""
    sw, items = c.get("web_switches"), r.get("rated_items") or 0
    if not sw or not items:
        return ""
    return f" switches/item {sw['voluntary'] / items:.1f}/{sw['involuntary'] / items:.2f};"


def _kernel(c: dict, r: dict) -> str:
    """Web's and PostgreSQL's user and system CPU (ms) and minor page faults per rated item,
    when known (``cpu.kernel_side``)."""
    side, items = c.get("kernel_side"), r.get("rated_items") or 0
    if not side or not items:
        return ""
    return "".join(
        f" {name} user/sys {k['user_s'] * 1000 / items:.2f}/{k['system_s'] * 1000 / items:.2f}"
        f" ms, {k['minor_faults'] / items:.1f} faults per item;"
        for name, k in (("web", side["web"]), ("PG", side["postgresql"]))
    )


def line(tool: str, n: int, r: dict) -> str:
    p, a, c = r["pair_ms"], r["arrivals"], r["cpu"]
    pace = c.get("pace_during_ms", {})
    errors = sum(r["http_errors"].values())
    text = (
        f"{tool:8} {n:4} | {r['items_per_s'] or 0:7.1f} items/s (window s {r.get('window_s')},"
        f" arrived s {r.get('arrivals_s')}) | pair p50 {p['p50'] or 0:7.0f} "
        f"p95 {p['p95'] or 0:7.0f} p99 {p['p99'] or 0:7.0f} ms | arrivals {a['accepted']}/"
        f"{a['refused']}/{a['errored']} | finished {r['finished']} | HTTP errors {errors}"
        f" (+{sum(r['asset_errors'].values())} assets) | CPU "
        f"web {c['web_s']} PG {c['postgresql_s']} ({c.get('postgresql_exited_s', 0.0)} exited)"
        f" gen {c['generator_s']} other {c['other_s']} s "
        f"in {c['wall_s']} s (load {c['load_avg_1m'][0]}; web workers {c['web_workers_s']} s"
        f"{shares(c['web_workers_s'])}; recycled {c.get('replaced_workers', 0)},"
        f" +{c.get('replaced_workers_s', 0.0)} s;{_switches(c, r)}{_kernel(c, r)}"
        f" steal {c.get('steal_pct', 0.0)} %,"
        f" pace {c.get('pace_ms')} ms, during p10/p50/p90 {pace.get('p10')}/{pace.get('p50')}"
        f"/{pace.get('p90')}, memory p50 {pace.get('memory', {}).get('p50')})"
    )
    if "integrity" in r:
        i = r["integrity"]
        text += (
            f"\n{'':14}integrity {'OK' if i['ok'] else 'FAILED'}: "
            f"over quota {i['samples_over_quota']}"
            f"/{i['samples_rated_over_quota']}, setup twice {i['setup_twice']}, duplicated "
            f"{i['duplicated_ratings']}, stored {i['stored']} = acknowledged {i['acknowledged']}"
            + (
                f", not exactly at quota {i['samples_not_exactly_at_quota']}"
                if i["exact_checked"]
                else ""
            )
        )
    if r.get("stored") is not None:
        st = r["stored"]
        text += (
            f"\n{'':14}Potato stored {st['stored']} ratings for {r['rated_items']} acknowledged;"
            f" items over quota {st['items_over_quota']} (max {st['max_ratings_of_an_item']})"
        )
    for error in r["errors"][:3]:
        text += f"\n{'':14}{error}"
    return text


def shares(workers: list[float]) -> str:
    """The workers' shares of their CPU (" = 0.52/0.41/0.07"): even is 1/n each."""
    total = sum(workers)
    return " = " + "/".join(f"{w / total:.2f}" for w in workers) if total else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--participants",
        default=None,
        help="counts arriving at once, one run each; Nx = N x capacity (default 50,200,1.2x;"
        " none with --burst unless given)",
    )
    parser.add_argument("--tools", default="ambisite,potato")
    parser.add_argument(
        "--setups", type=int, default=None, help="study size (x 6 samples; 200, or --burst's N)"
    )
    parser.add_argument(
        "--burst",
        type=int,
        default=0,
        help="a release burst: N participants arriving evenly within --within seconds, then "
        "walking the study (bench/load/burst.py); one run per tool and AmbiSite variant",
    )
    parser.add_argument("--within", type=float, default=10.0, help="the burst's seconds")
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="seconds each participant spends on an item before answering it (default 0: no"
        " think time, the stress figure; a person reading a story takes longer)",
    )
    size = repo_size()
    parser.add_argument(
        "--sizes",
        default=size,
        help=f"AmbiSite's gunicorn workers x threads, one run each (default: the repo's config,"
        f" {size})",
    )
    parser.add_argument(
        "--clients",
        default="script,form",
        help="AmbiSite's browsers, one run each: script (participant.js: one fetch per item) and/or"
        " form (no script: POST, 303, GET)",
    )
    parser.add_argument("--potato-threads", type=int, default=8)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per run")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "load.json"))
    parser.add_argument("--note", default="", help="free text stored with the results")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="CI size: AmbiSite only (Potato's venv needs the network), 4 participants on 30 "
        "setups, then a burst of 30 within 2 s (the study full: quotas exact), gunicorn 1x2, "
        "browsers without scripts; results in a temporary folder",
    )
    args = parser.parse_args()
    if args.smoke:
        import tempfile

        scratch = os.environ.get("BENCH_SCRATCH_DIR") or tempfile.mkdtemp(prefix="bench-load-")
        args.tools, args.participants, args.setups = "ambisite", "4", 30
        args.burst, args.within = 30, 2.0
        args.sizes, args.clients, args.timeout = "1x2", "form", 180
        args.out = str(Path(scratch) / "load.json")
    if args.participants is None:
        args.participants = "" if args.burst else "50,200,1.2x"
    if args.setups is None:
        args.setups = max(args.burst, tool_ambisite.PER_PARTICIPANT) if args.burst else 200
    tools = [t for t in args.tools.split(",") if t]
    url = os.environ.get("DATABASE_URL", "")
    if "ambisite" in tools and not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit("DATABASE_URL must point to PostgreSQL")
    capacity = args.setups * 6 * tool_ambisite.RATINGS // tool_ambisite.PER_PARTICIPANT
    steady = counts(args.participants, capacity) if args.participants else []
    plan = [(n, 0.0) for n in steady]
    if args.burst:
        plan += [(counts(str(args.burst), capacity)[0], args.within)]
    data = json.loads((ROOT / "data" / "ambistory" / "train.json").read_text())
    samples = burst.study_samples(data, args.setups)
    if "potato" in tools:
        tool_potato.ensure_venv()
    if "ambisite" in tools:
        tool_ambisite.build_template(url, samples, args.setups)
    results = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "load_avg_at_start": os.getloadavg()},
        "note": args.note,
        "study": {"setups": args.setups, "samples": len(samples), "capacity": capacity},
        "runs": [],
    }
    print(
        f"study: {len(samples)} samples x 5 ratings, 30 + 1 check per participant; "
        f"capacity {capacity}"
    )
    print(
        "tool     part |   sustained   | pair latency (rating + next page)  | arrivals acc/ref/err"
    )
    try:
        for n, within in plan:
            args.within_now = within
            for tool in tools:
                variants = (
                    [(s, c) for s in args.sizes.split(",") for c in args.clients.split(",")]
                    if tool == "ambisite"
                    else [("1x8", "")]
                )
                for size, client in variants:
                    r = (
                        run_ambisite(args, url, n, capacity, size, client)
                        if tool == "ambisite"
                        else run_potato(args, samples, n)
                    )
                    r["tool"], r["participants"] = tool, n
                    results["runs"].append(r)
                    name = f"{tool} {size} {client}" if tool == "ambisite" else tool
                    print(line(name, n, r), flush=True)
                    if within:
                        r["within_s"], r["burst"] = within, burst.summary(r)
                        r["think_s"] = args.think
                        print(burst.line(name, n, within, r), flush=True)
    finally:
        if "ambisite" in tools:
            tool_ambisite.drop_databases(url)
    results["ratios"] = ratios([r for r in results["runs"] if "burst" not in r])
    for text in burst.ratio_lines(results["runs"]):
        print(text)
    for r in results["ratios"]:
        print(
            f"AmbiSite ({r['ambisite_size']}, {r['ambisite_client']})/Potato at"
            f" {r['participants']}: "
            f"items/s x{r['items_per_s']}, "
            f"pair p95 x{r['pair_p95']} (target at 200: >= 12 and <= 0.2)"
        )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"results: {out}")
    failed = [r for r in results["runs"] if "integrity" in r and not r["integrity"]["ok"]]
    sys.exit(1 if failed else 0)


def ratios(runs: list[dict]) -> list[dict]:
    """AmbiSite/Potato for every AmbiSite run with a Potato run of the same size."""
    potato = {r["participants"]: r for r in runs if r["tool"] == "potato"}
    found = []
    for a in runs:
        p = potato.get(a["participants"])
        if a["tool"] != "ambisite" or p is None or not p["items_per_s"] or not p["pair_ms"]["p95"]:
            continue
        found.append(
            {
                "participants": a["participants"],
                "ambisite_size": a["size"],
                "ambisite_client": a.get("client", "form"),
                "items_per_s": round((a["items_per_s"] or 0) / p["items_per_s"], 2),
                "pair_p95": round((a["pair_ms"]["p95"] or 0) / p["pair_ms"]["p95"], 3),
            }
        )
    return found


if __name__ == "__main__":
    main()
