"""`python -m eval.bench facts`: the facts stores at corpus scale (10 million generated facts).

A full annual-report corpus gives tens of millions of facts (FinGLM had 11,588
reports), so the stores must answer per question without loading them. For
each backend this benchmark

1. builds the store from generated facts (companies x 3 report years x row
   labels x this-year and previous-year columns, the field names of
   rules/fields.yaml plus note-table labels), streaming them in: facts/s and
   the builder's peak memory;
2. in a fresh process, answers random lookups (a company-year and a field
   with its synonyms, as qa.data.answer asks), rankings (top 10 of a field
   in a year) and filtered counts (companies whose preferred value of a field
   in a year is above a random threshold, as qa.data.statistics asks): latency
   p50/p95 and the process's peak memory. Targets (issue 10): ranking p95
   < 50 ms, filtered count p95 < 100 ms, on both stores.

Baselines in the same run: the embedded lookups against the same SQL read
without its index (`NOT INDEXED`, a full scan, on a few queries), and the
Elasticsearch latencies against the embedded ones.

    python -m eval.bench facts [--facts 10000000] [--queries 1000] [--backends embedded,elasticsearch]
                               [--es-url URL] [--es-prefix NAME] [--work DIR [--reuse]]

Elasticsearch: start a server first (`bash docker/elasticsearch.sh start`) or
run the benchmark through `bash docker/elasticsearch.sh run python -m eval.bench facts`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

from core.command_names import command_name
from eval.bench._data import work_dir

YEARS = (2019, 2020, 2021)
LABELS_PER_REPORT = 330  # row labels per report; each with a this-year and a previous-year value
SEED = 20240611
TARGETS_P95_MS = {"ranking": 50, "count": 100}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} facts", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--facts", type=int, default=10_000_000, help="facts to generate (default 10 million)")
    ap.add_argument("--queries", type=int, default=1000, help="lookups and rankings timed per backend")
    ap.add_argument("--backends", default="embedded,elasticsearch")
    ap.add_argument("--es-url", default=os.environ.get("FINQA_ES_URL", ""))
    ap.add_argument(
        "--es-prefix", default="finqa-bench", help="index name prefix (runs of several sizes side by side)"
    )
    ap.add_argument("--work", type=Path, help="where the SQLite store goes (default: a temp dir, removed)")
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="time the queries on the stores an earlier run with the same --facts and --work built",
    )
    ap.add_argument("--worker", choices=("build", "query"), help=argparse.SUPPRESS)
    ap.add_argument("--backend", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        result = (_build if args.worker == "build" else _query)(args)
        print(json.dumps(result))
        return 0
    backends = [b for b in args.backends.split(",") if b]
    if "elasticsearch" in backends and not args.es_url:
        print(
            "elasticsearch skipped: no server (set FINQA_ES_URL or --es-url, or run through docker/elasticsearch.sh run)"
        )
        backends.remove("elasticsearch")
    with work_dir(args.work, "finqa-facts-bench-") as work:
        return _run(args, backends, work)


def _run(args, backends: list[str], work: Path) -> int:
    print(f"{args.facts:,} generated facts, {args.queries} lookups and rankings per backend")
    results = {}
    for backend in backends:
        common = _worker_options(args, backend, work)
        if not args.reuse:
            built = _worker("build", common)
            print(
                f"[{backend}] built {built['facts']:,} facts in {built['seconds']:.0f}s "
                f"({built['facts'] / built['seconds']:,.0f} facts/s), builder peak RSS {built['peak_mb']:.0f} MB"
            )
        queried = _worker("query", common)
        results[backend] = queried
        _print_queries(backend, queried)
    if {"embedded", "elasticsearch"} <= results.keys():
        for kind in ("lookup", "ranking", "count"):
            ratio = results["elasticsearch"][kind]["p50"] / results["embedded"][kind]["p50"]
            print(f"elasticsearch / embedded {kind} p50: {ratio:.1f}x")
    return 0


def _worker_options(args, backend: str, work: Path) -> list[str]:
    """The options a build or query worker process is started with for `backend`."""
    return [
        "--facts",
        str(args.facts),
        "--queries",
        str(args.queries),
        "--backend",
        backend,
        "--work",
        str(work),
        "--es-url",
        args.es_url,
        "--es-prefix",
        args.es_prefix,
    ]


def _print_queries(backend: str, queried: dict) -> None:
    """One backend's latencies against their targets, its memory, and (embedded) its baselines."""
    for kind in ("lookup", "ranking", "count"):
        ms = queried[kind]
        target = TARGETS_P95_MS.get(kind)
        verdict = (
            ""
            if target is None
            else f"  (target p95 < {target} ms: {'met' if ms['p95'] < target else 'MISSED'})"
        )
        print(
            f"[{backend}] {kind:<7} p50 {ms['p50']:.2f} ms  p95 {ms['p95']:.2f} ms  ({ms['n']} queries, "
            f"{ms['rows']:.1f} rows each on average){verdict}"
        )
    print(
        f"[{backend}] query process peak RSS {queried['peak_mb']:.0f} MB "
        f"(of which {queried['start_mb']:.0f} MB after imports, before opening the store)"
        + (
            f"; server JVM heap used {queried['server_heap_mb']:.0f} MB"
            if "server_heap_mb" in queried
            else ""
        )
    )
    if "scan" in queried:
        scan, rank_all = queried["scan"], queried["rank_all"]
        print(
            f"[{backend}] baseline: the same lookup without its index (full scan) p50 {scan['p50']:.0f} ms "
            f"-> the index is {scan['p50'] / queried['lookup']['p50']:,.0f}x faster"
        )
        print(
            f"[{backend}] baseline: ranking every company's preferred fact (window function) p50 "
            f"{rank_all['p50']:.0f} ms -> reading from the top is {rank_all['p50'] / queried['ranking']['p50']:,.0f}x "
            "faster"
        )


def _worker(stage: str, common: list[str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "eval.bench", "facts", "--worker", stage, *common],
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"facts benchmark: the {stage} step failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the generated corpus -------------------------------------------------------------------------------------------


def labels() -> list[str]:
    """Row labels of one report: the numeric fields of rules/fields.yaml, then note-table rows."""
    from core.fields import FieldDictionary

    fields = FieldDictionary.load().fields.values()
    names = [f.name for f in fields if f.kind == "number"]
    return (names + [f"附注项目{i:03d}" for i in range(LABELS_PER_REPORT)])[:LABELS_PER_REPORT]


def companies(n_facts: int) -> list[str]:
    per_company = len(YEARS) * LABELS_PER_REPORT * 2
    return [f"生成{i:05d}科技股份有限公司" for i in range(max(1, round(n_facts / per_company)))]


def generate(n_facts: int) -> Iterator[tuple[list, list]]:
    """(facts, reports) of one report at a time, reproducibly."""
    from core.records import Fact, ReportYear

    rng = random.Random(SEED)
    names = labels()
    for company in companies(n_facts):
        for year in YEARS:
            doc = f"gen/{company}/{year}"
            facts = []
            for page, label in enumerate(names, start=20):
                for period, fact_year in (("本期", year), ("上期", year - 1)):
                    cents = rng.randrange(-(10**9), 10**13)
                    value = Decimal(cents).scaleb(-2)
                    facts.append(
                        Fact(
                            company,
                            fact_year,
                            label,
                            str(value),
                            value,
                            "元",
                            f"{value:,}",
                            period,
                            doc_id=doc,
                            page=page // 10,
                            table=f"p{page // 10}t1",
                            cell_id=f"{doc}-r{page}c{1 if period == '本期' else 2}",
                        )
                    )
            yield facts, [ReportYear(company, year, doc_id=doc)]


# -- workers (each in its own process, so peak memory is theirs alone) ----------------------------------------------


def _store(args, fresh: bool):
    from search.settings import IndexSettings

    if args.backend == "embedded":
        from search.sqlite_facts import SqliteFactStore

        path = Path(args.work) / "facts.sqlite"
        if fresh:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        return SqliteFactStore(path)
    from search.elastic import connect
    from search.elastic_facts import ElasticFactStore

    settings = IndexSettings(
        Path(args.work), backend="elasticsearch", es_url=args.es_url, es_prefix=args.es_prefix
    )
    if fresh:
        client = connect(args.es_url)
        client.options(ignore_status=404).indices.delete(index=f"{args.es_prefix}-facts")
        client.close()
    return ElasticFactStore(settings)


def _build(args) -> dict:
    store = _store(args, fresh=True)
    count = 0
    start = time.perf_counter()
    for facts, reports in generate(args.facts):
        count += store.add(facts, reports)
        if args.backend == "embedded" and count % 500_000 < len(facts):
            store.commit()  # bounded transactions
    store.commit()
    seconds = time.perf_counter() - start
    store.close()
    return {"facts": count, "seconds": seconds, "peak_mb": _peak_mb()}


def _query(args) -> dict:
    import pandas  # noqa: F401 - imported before the baseline memory figure

    from core.fields import FieldDictionary
    from search.backend import Condition

    dictionary = FieldDictionary.load()
    start_mb = _peak_mb()
    names = labels()
    store = _store(args, fresh=False)
    rng = random.Random(SEED + 1)
    pool = companies(args.facts)

    def synonyms(label: str) -> list[str]:
        definition = dictionary.fields.get(label)
        return [label, *(definition.synonyms if definition else ())]

    lookups = [
        (rng.choice(pool), rng.choice(YEARS), synonyms(rng.choice(names))) for _ in range(args.queries)
    ]
    rankings = [(synonyms(rng.choice(names)), rng.choice(YEARS)) for _ in range(args.queries)]
    # Thresholds across the generated values' range (up to 1e11 元), so counts run from all to none.
    counts = [
        (synonyms(rng.choice(names)), rng.choice(YEARS), Condition(">", rng.uniform(-1e7, 1.1e11)))
        for _ in range(args.queries)
    ]
    for company, year, fields in lookups[:20]:  # warm-up: caches and connections
        store.lookup(company, [year], fields)
    result = {
        "lookup": _timed(lambda q: store.lookup(q[0], [q[1]], q[2]), lookups),
        "ranking": _timed(lambda q: store.ranking(q[0], q[1], 10), rankings),
        "count": _timed(lambda q: [store.count_companies(q[0], q[1], condition=q[2])], counts),
    }
    if args.backend == "embedded":
        db = sqlite3.connect(store.path)
        result["scan"] = _timed(lambda q: _scan(db, *q), lookups[:3])
        result["rank_all"] = _timed(lambda q: _rank_all(db, *q), rankings[:20])
        db.close()
    else:
        stats = store.client.nodes.stats(metric="jvm")["nodes"]
        result["server_heap_mb"] = sum(n["jvm"]["mem"]["heap_used_in_bytes"] for n in stats.values()) / 2**20
    store.close()
    result.update(peak_mb=_peak_mb(), start_mb=start_mb)
    return result


def _scan(db, company: str, year: int, fields: list[str]):
    """The lookup's rows read without any index: what a store without indexes would cost."""
    marks = ", ".join("?" * len(fields))
    return db.execute(
        f"SELECT * FROM facts NOT INDEXED WHERE company = ? AND year = ? AND field IN ({marks})",
        [company, year, *fields],
    ).fetchall()


def _rank_all(db, fields: list[str], year: int):
    """The ranking's baseline: pick every company's preferred fact, then sort them all (a window function)."""
    marks = ", ".join("?" * len(fields))
    order = " ".join(f"WHEN ? THEN {i}" for i in range(len(fields)))
    return db.execute(
        f"""
        WITH picked AS (
            SELECT company, num, ROW_NUMBER() OVER (PARTITION BY company ORDER BY (report_year != year),
                   CASE field {order} END, precision, page, table_id, cell_id, rowid) AS pick
            FROM facts WHERE field IN ({marks}) AND year = ? AND num IS NOT NULL)
        SELECT company, num FROM picked WHERE pick = 1 ORDER BY num DESC LIMIT 10""",
        [*fields, *fields, year],
    ).fetchall()


def _timed(run, queries) -> dict:
    times, rows = [], 0
    for query in queries:
        start = time.perf_counter()
        out = run(query)
        times.append((time.perf_counter() - start) * 1000)
        rows += len(out)
    times.sort()
    return {
        "p50": statistics.median(times),
        "p95": times[min(len(times) - 1, int(0.95 * len(times)))],
        "n": len(times),
        "rows": rows / len(times),
    }


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
