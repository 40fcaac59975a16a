"""`python -m eval.bench ingest`: full ingestion of real PDFs against a naive baseline.

Two sets, each measured alone: annual-cn (five Chinese annual reports, 891 pages, every
page with a text layer, up to 296 pages: the peak-memory case) and the AI CUP reference
PDFs (191 files, some pages scanned: OCR). In one process run, over the same files:

- baseline: a single-process loop of pdfplumber `extract_text()` over every
  page (what the organisers' BM25 baseline reads), in a process of its own, pages/s;
- full ingestion: `ingestion.pipeline.ingest` into a fresh index with `--workers`
  processes (default 2: both cores): tables, facts, OCR of pages without a
  text layer, chunking, tokenizing, the text index, the facts store and the
  tables workbooks; pages/s and the ratio to the baseline;
- CPU milliseconds per page of both (this process and the finished workers):
  the per-core ratio, which other jobs on the machine change far less than
  the wall-clock one;
- peak memory (resource.getrusage max RSS of this process and of the
  largest child, taken after the ingest and before the baseline's process), OCR pages, files by status, and how busy the workers
  were (per-file parse seconds summed, over workers x wall time);
- a cProfile of ingesting an evenly spaced sample of the files in this
  process (`parse_source` on each, as a worker parses it, then the main
  process's `BatchWriter.write` of them all): seconds per stage (pdfium
  characters and edges, table finding, text lines, headings and chunks,
  facts, identity, tokenizing, tantivy, SQLite, workbooks) and the top
  functions by cumulative time;
- with --shards N and FINQA_ES_URL set (a running Elasticsearch): the same set
  ingested into Elasticsearch by one `python -m parser.ingest` process, then
  by N `--shard I/N` processes at once into another corpus name (each with one
  worker), wall time of both and whether the two corpora hold the same
  documents, chunks and facts.

    python -m eval.bench ingest                      # both sets, workers=2
    python -m eval.bench ingest --set annual-cn --profile-sample 0
    python -m eval.bench ingest --set annual-cn --match 平安银行 --profile-sample 0   # the 296-page report
    python -m eval.bench ingest --set aicup --limit 40 --profile-sample 6
    python -m eval.bench ingest --set aicup-text --profile-sample 20   # the AI CUP PDFs that need no OCR
    bash docker/elasticsearch.sh run python -m eval.bench ingest --set annual-cn --shards 2 --profile-sample 0
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from core.command_names import command_name
from eval.bench._data import shared_data


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and its finished children (the ingestion workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def baseline_pages_per_second(paths: list[Path]) -> tuple[int, float]:
    """Pages and seconds of pdfplumber extract_text over every page, one process."""
    import pdfplumber

    pages, started = 0, time.perf_counter()
    for path in paths:
        try:
            with pdfplumber.open(path) as pdf:
                for page in pdf.pages:
                    page.extract_text()
                    pages += 1
                    page.close()
        except Exception:  # noqa: BLE001 - the baseline skips what it cannot open, as the organisers' did
            continue
    return pages, time.perf_counter() - started


_BASELINE_SCRIPT = (
    "import sys; from pathlib import Path; from eval.bench.ingest import baseline_pages_per_second; "
    "print(*baseline_pages_per_second([Path(p) for p in sys.argv[1:]]))"
)

# Stages of ingesting a PDF, as functions of the profile: (file, function) adds its cumulative time, and
# with a third part, only the calls from that caller; a "-" before the file subtracts it (counted elsewhere).
STAGES = (
    ("pdfium: characters", [("parser/pdfium_page.py", "_chars")]),
    ("pdfium: ruling edges", [("parser/pdfium_page.py", "_edges")]),
    ("pdfminer: pages pdfium cannot stand in for", [("pdfplumber/page.py", "parse_objects")]),
    ("tables: ruled (find_pdf_tables)", [("parser/tables.py", "find_pdf_tables")]),
    (
        "tables: unruled and coded (their words, both readers)",
        [
            ("parser/unruled.py", "page_words"),
            ("parser/unruled.py", "find_unruled_tables"),
            ("parser/coded_statements.py", "find_coded_tables"),
        ],
    ),
    (
        "text lines outside tables (chars_to_textmap)",
        [("pdfplumber/utils/text.py", "chars_to_textmap", "parser/pdf.py")],
    ),
    (
        "headers and footers, wrapped lines, headings, chunks",
        [
            ("parser/pdf.py", "_drop_headers_footers"),
            ("parser/pdf.py", "_join_wrapped"),
            ("parser/pdf.py", "_title_tables"),
            ("parser/tables.py", "merge_continued"),
            ("parser/chunking.py", "run"),
        ],
    ),
    ("facts from tables", [("parser/facts.py", "add_tables"), ("parser/facts.py", "by_fiscal_end")]),
    ("company and period (identity)", [("core/identity.py", "find")]),
    ("tokenizing (search/tokenize.py)", [("search/tokenize.py", "tokens")]),
    (
        "text index: tantivy, without tokenizing",
        [
            ("search/embedded.py", "add"),
            ("-search/index_terms.py", "chunk_terms"),
            ("search/embedded.py", "commit"),
        ],
    ),
    ("facts store: SQLite", [("search/sqlite_facts.py", "add"), ("search/sqlite_facts.py", "commit")]),
    ("tables workbooks", [("parser/workbook.py", "write_tables_workbook")]),
)


def stage_seconds(stats: pstats.Stats) -> list[tuple[str, float]]:
    """Cumulative seconds of each of STAGES in a profile."""

    def seconds(path: str, function: str, caller: str = "") -> float:
        total = 0.0
        for (file, _, name), (_, _, _, cumulative, callers) in stats.stats.items():
            if name != function or not file.replace("\\", "/").endswith(path):
                continue
            from_caller = (c[3] for (f, _, _), c in callers.items() if f.endswith(caller))
            total += sum(from_caller) if caller else cumulative
        return total

    return [
        (
            label,
            sum(-seconds(key[0][1:], *key[1:]) if key[0].startswith("-") else seconds(*key) for key in keys),
        )
        for label, keys in STAGES
    ]


def profile_sample(corpus: Path, sample: list[Path], top: int) -> str:
    """cProfile of ingesting `sample` in this process: parsing each file as one worker would, then writing
    them all as the main process does; seconds per stage (STAGES) and the top functions."""
    from core.identity import IdentityFinder, IdentityRules
    from core.manifest import Manifest
    from ingestion.sources import Source
    from ingestion.workers import parse_source
    from ingestion.writer import BatchWriter, Job
    from parser.metadata import MetadataFinder
    from parser.settings import ParseSettings
    from search.settings import IndexSettings

    documents = {p.relative_to(corpus).with_suffix("").as_posix(): p for p in sample}
    finder = MetadataFinder.for_corpus(corpus, documents)
    settings = ParseSettings()
    identity = IdentityFinder(IdentityRules.load())  # once, as a worker loads it
    sources = [
        Source(path, path.relative_to(corpus).as_posix(), doc_id, "pdf") for doc_id, path in documents.items()
    ]
    profiler = cProfile.Profile()
    with tempfile.TemporaryDirectory(prefix="finqa-bench-profile-") as temp:
        index = IndexSettings(Path(temp))
        with BatchWriter(index, Manifest.load(index.manifest_path)) as writer:
            profiler.enable()
            outcomes = [parse_source(source, finder, settings, identity) for source in sources]
            writer.write([(o, Job(o.source, "", "", 0, 0)) for o in outcomes if o.document is not None])
            profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    pages = sum(o.document.pages for o in outcomes if o.document is not None)
    total = stats.total_tt
    lines = [f"seconds per stage ({pages} pages, {total:.1f} s profiled; stages may overlap a little):"]
    lines += [
        f"  {label:<55} {seconds:7.2f} s {seconds / total:6.1%}" for label, seconds in stage_seconds(stats)
    ]
    stats.sort_stats("cumulative").print_stats(top)
    printed = [line for line in out.getvalue().splitlines() if line.strip()]
    start = next((i for i, line in enumerate(printed) if line.lstrip().startswith("ncalls")), 0)
    return "\n".join(lines + printed[start:])


SETS = ("annual-cn", "aicup")  # "both"
TEXT_LAYER_SET = "aicup-text"  # the AI CUP PDFs that need no OCR


def corpus_files(name: str, limit: int) -> tuple[Path, list[Path]] | None:
    """The PDFs of one development set: annual-cn (text layer on every page), aicup (some scanned pages) or
    aicup-text (the AI CUP PDFs with a text layer on every page: no OCR)."""
    if name == "annual-cn":
        root = shared_data("annual-cn", "reports")
        return None if root is None else (root, sorted(root.glob("*.pdf"))[: limit or None])
    root = shared_data("aicup", "reference")
    if root is None:
        return None
    paths = []
    for folder in ("finance", "insurance"):
        files = sorted((root / folder).glob("*.pdf"), key=lambda p: int(p.stem) if p.stem.isdigit() else 0)
        if name == TEXT_LAYER_SET:
            files = [p for p in files if _text_layer_on_every_page(p)]
        paths += files[: limit or None]
    return root, paths


def _text_layer_on_every_page(path: Path) -> bool:
    """Whether pdfium reads at least the parser's minimum of visible characters on each page, in the scripts the
    parser reads (parser/pdf.py `readable`): none needs OCR. A text layer of fonts without a Unicode map
    (finance/40, 803) is OCR'd, at about 7 CPU s a page: the set measures reading text layers."""
    from parser.page_texts import pdf_page_texts
    from parser.pdf import readable
    from parser.settings import ParseSettings

    least = ParseSettings().min_text_chars
    texts = pdf_page_texts(path, sys.maxsize)  # [] when pdfium cannot open the file: nothing to read then
    return bool(texts) and all(sum(not ch.isspace() for ch in t) >= least and readable(t) for t in texts)


def copy_corpus(root: Path, files: list[Path], corpus: Path) -> list[Path]:
    """`files` (below `root`) copied to the same places below `corpus`, which also warms the page cache for
    the runs compared; the copies."""
    paths = []
    for path in files:
        target = corpus / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        paths.append(target)
    return paths


def measure_set(name: str, root: Path, files: list[Path], temp: Path, workers: int) -> list[Path]:
    """Baseline and full ingestion of one set, in this run; returns the copied files."""
    from ingestion.pipeline import ingest
    from search.settings import IndexSettings

    corpus = temp / name / "corpus"
    paths = copy_corpus(root, files, corpus)
    print(f"\n[{name}] corpus: {len(paths)} PDFs from {root}")

    # The ingest first: the largest child's peak memory is then a worker's, not the baseline process's.
    started, cpu = time.perf_counter(), cpu_seconds()
    summary = ingest(corpus, IndexSettings(temp / name / "index"), workers=workers, progress=False)
    seconds, ingest_cpu = time.perf_counter() - started, cpu_seconds() - cpu
    peaks = Peaks.now()

    baseline = Baseline.measured(paths)
    print(
        f"baseline (pdfplumber extract_text, 1 process): {baseline.pages} pages in {baseline.seconds:.1f} s "
        f"= {baseline.rate:.2f} pages/s; {baseline.cpu_per_page * 1000:.0f} CPU ms per page"
    )
    report_ingest(summary, seconds, ingest_cpu, workers, baseline, peaks)
    return paths


@dataclass(frozen=True)
class Peaks:
    """Peak memory so far: this process's, and the largest finished child's (an ingestion worker)."""

    main_mb: float
    child_mb: float

    @classmethod
    def now(cls) -> Peaks:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return cls(own.ru_maxrss / 1024, children.ru_maxrss / 1024)


@dataclass(frozen=True)
class Baseline:
    """The naive loop's run over a set: pages, wall seconds and CPU seconds."""

    pages: int
    seconds: float
    cpu: float

    @classmethod
    def measured(cls, paths: list[Path]) -> Baseline:
        """The loop over `paths` in a process of its own, as the ingest's main process is: neither finds the
        other's memory already taken from the system (which costs CPU to take)."""
        from core.rulefile import PROJECT_ROOT

        cpu = cpu_seconds()
        done = subprocess.run(
            [sys.executable, "-c", _BASELINE_SCRIPT, *map(str, paths)],
            capture_output=True,
            text=True,
            check=True,
            cwd=PROJECT_ROOT,
            env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        )
        pages, seconds = done.stdout.split()[-2:]
        return cls(int(pages), float(seconds), cpu_seconds() - cpu)

    @property
    def rate(self) -> float:
        return self.pages / self.seconds if self.seconds else 0.0

    @property
    def cpu_per_page(self) -> float:
        return self.cpu / max(self.pages, 1)


def report_ingest(
    summary, seconds: float, ingest_cpu: float, workers: int, baseline: Baseline, peaks: Peaks
) -> None:
    """Print a full ingestion's speed, per file kind, per core and against the baseline, and the peak memory."""
    pages = summary.total("pages")
    rate = pages / seconds if seconds else 0.0
    counts = ", ".join(f"{n} {status}" for status, n in summary.counts.items())
    print(
        f"full ingestion (workers={workers}): {pages} pages in {seconds:.1f} s = {rate:.2f} pages/s "
        f"({counts}; {summary.total('ocr_pages')} OCR pages, {summary.total('tables')} tables, "
        f"{summary.total('chunks')} chunks, {summary.total('facts')} facts)"
    )
    parse_seconds = sum(f.seconds for f in summary.files)
    print(
        f"  parsing in the workers: {parse_seconds:.1f} s summed over files = "
        f"{parse_seconds / (seconds * workers):.0%} of {workers} workers x wall time "
        f"(the rest: pool start, metadata, waiting on the slowest file, writing in the main process)"
    )
    ocr_files = [f for f in summary.files if f.ocr_pages]
    text_files = [f for f in summary.files if f.status == "ingested" and not f.ocr_pages]
    text_pages, text_seconds = sum(f.pages for f in text_files), sum(f.seconds for f in text_files)
    base_rate = baseline.rate
    print(
        f"  files with OCR pages: {len(ocr_files)} files, {sum(f.ocr_pages for f in ocr_files)} OCR pages, "
        f"{sum(f.seconds for f in ocr_files):.1f} s; files without: {text_pages} pages in {text_seconds:.1f} s "
        f"= {text_pages / text_seconds if text_seconds else 0:.2f} pages/s per worker "
        f"({text_pages / text_seconds / base_rate if text_seconds and base_rate else 0:.2f} x baseline)"
    )
    for failed in summary.failed:
        print(f"  failed: {failed.path}: {'; '.join(failed.errors)}")
    print(f"ratio full / baseline pages/s: {rate / base_rate:.2f}" if base_rate else "ratio: n/a")
    # CPU time per page does not depend on how many cores other jobs leave free (wall time does).
    print(
        f"CPU per page: full ingestion {ingest_cpu / max(pages, 1) * 1000:.0f} ms (workers and main process) vs "
        f"baseline {baseline.cpu_per_page * 1000:.0f} ms: baseline / full "
        f"{baseline.cpu_per_page / (ingest_cpu / max(pages, 1)):.2f}x per core"
        if ingest_cpu and baseline.cpu
        else "CPU per page: n/a"
    )
    biggest = max(summary.files, key=lambda f: f.pages, default=None)
    print(
        f"peak memory of the ingest: main process {peaks.main_mb:.0f} MB, largest worker so far "
        f"{peaks.child_mb:.0f} MB" + (f" (the longest file: {biggest.pages} pages)" if biggest else "")
    )


def measure_shards(name: str, corpus: Path, temp: Path, es_url: str, shards: int) -> None:
    """One ingest process against `shards` shard processes at once, into two corpora on one Elasticsearch."""
    from search.elastic import connect
    from search.settings import corpus_prefix

    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    single, split = f"{prefix}-single", f"{prefix}-split"
    indexes = temp / name
    try:
        one = ingest_processes(corpus, indexes, es_url, single, [""])
        many = ingest_processes(
            corpus, indexes, es_url, split, [f"{i}/{shards}" for i in range(1, shards + 1)]
        )
        held = es_contents(indexes, es_url, split)
        same = es_contents(indexes, es_url, single) == held
        print(
            f"Elasticsearch, 1 process: {one:.1f} s; {shards} shard processes at once: {many:.1f} s "
            f"= {one / many:.2f}x the speed; same company-years, chunks and facts: {same} {held}"
        )
    finally:
        client = connect(es_url)
        for corpus_name in (single, split):
            client.options(ignore_status=404).indices.delete(index=f"{corpus_prefix(corpus_name)}-*")
        client.close()


def ingest_processes(corpus: Path, indexes: Path, es_url: str, corpus_name: str, parts: list[str]) -> float:
    """Wall seconds of `python -m parser.ingest` processes run at once into one Elasticsearch corpus, one per
    `--shard` part ("" for the whole corpus), each with one worker."""
    started = time.perf_counter()
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "parser.ingest",
                str(corpus),
                "--index",
                str(indexes / f"{corpus_name}-{i}"),
                "--backend",
                "elasticsearch",
                "--es-url",
                es_url,
                "--es-index",
                corpus_name,
                "--workers",
                "1",
                *(["--shard", part] if part else []),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, part in enumerate(parts)
    ]
    for process in processes:
        _, err = process.communicate()
        if process.returncode not in (0, 3):  # 3: some files failed, the same ones in both runs
            raise SystemExit(f"ingest exited with {process.returncode}: {err.strip().splitlines()[-1:]}")
    return time.perf_counter() - started


def es_contents(indexes: Path, es_url: str, corpus_name: str) -> tuple[int, int, int]:
    """Company-years, chunks and facts one Elasticsearch corpus holds."""
    from search.settings import IndexSettings, corpus_prefix
    from search.stores import open_fact_store, open_text_index

    settings = IndexSettings(
        indexes / "count", backend="elasticsearch", es_url=es_url, es_prefix=corpus_prefix(corpus_name)
    )
    text, facts = open_text_index(settings), open_fact_store(settings)
    try:
        text.commit()
        facts.commit()
        return len(facts.reports()), text.count(), facts.count()
    finally:
        text.close()
        facts.close()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{command_name('eval.bench')} ingest", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--workers", type=int, default=2, help="ingestion processes (default 2: both cores)")
    ap.add_argument(
        "--set",
        choices=(*SETS, TEXT_LAYER_SET, "both"),
        default="both",
        help="annual-cn (text layer only, long reports), aicup (with scanned pages), aicup-text (its PDFs with a "
        "text layer on every page), or both (default: annual-cn and aicup)",
    )
    ap.add_argument("--limit", type=int, default=0, help="only the first N PDFs of each folder (0 = all)")
    ap.add_argument("--match", default="", help="only PDFs whose file name contains this text")
    ap.add_argument(
        "--profile-sample", type=int, default=8, help="files in the profiled worker-equivalent run"
    )
    ap.add_argument("--top", type=int, default=25, help="functions shown in the profile")
    ap.add_argument(
        "--shards",
        type=int,
        default=0,
        help="also ingest into Elasticsearch (FINQA_ES_URL) by 1 process and by N shard processes",
    )
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="finqa-bench-ingest-") as temp:
        paths, corpus = [], None
        for name in SETS if args.set == "both" else (args.set,):
            found = corpus_files(name, args.limit)
            if found is None:
                continue
            found = (found[0], [p for p in found[1] if args.match in p.name])
            paths = measure_set(name, *found, Path(temp), args.workers)
            corpus = Path(temp) / name / "corpus"
            if args.shards > 1:
                if os.environ.get("FINQA_ES_URL"):
                    measure_shards(name, corpus, Path(temp), os.environ["FINQA_ES_URL"], args.shards)
                else:
                    print(
                        "shards: skipped, FINQA_ES_URL is not set (run through docker/elasticsearch.sh run)"
                    )
        if corpus is None or not args.profile_sample:
            return 0
        step = max(1, len(paths) // max(1, args.profile_sample))
        sample = paths[::step][: args.profile_sample]
        print(
            f"\nprofile of ingesting {len(sample)} files in this process, every {step}th "
            f"({', '.join(p.relative_to(corpus).as_posix() for p in sample)}):"
        )
        print(profile_sample(corpus, sample, args.top))
    return 0
