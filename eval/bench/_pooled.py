"""`python -m eval.bench._pooled QUESTIONS INDEX_DIR WORKERS OUT`: one pooled run, timed as qa.run answers.

Run by eval/bench/_data.py `answer_in_workers` in a fresh interpreter, so the run starts in the state qa.run is
in when it opens its answerer: the modules qa.run imports are loaded and the questions read, nothing is answered
(no rule file read, no tokenizer dictionary or pandas loaded, no cache warm). The workers fork from this state, as
qa.run's do. The seconds run from opening the answerer to the last answer written (one JSON line per answer in
input order, as qa.run writes them: the parent's share of the work is counted); interpreter start-up and imports
are the startup bench's (eval/bench/startup.py). Prints {"seconds": S} on stdout; OUT holds the answers.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from qa.engine import EngineSettings
from qa.io.answer_file import answer_line
from qa.io.batch import BatchAnswerer, BatchSettings
from qa.io.question_stream import iter_questions
from qa.run import BATCH  # and with it every module qa.run imports
from search.settings import IndexSettings


def main(argv: list[str]) -> int:
    questions_file, index_dir, workers, out = Path(argv[0]), Path(argv[1]), int(argv[2]), Path(argv[3])
    questions = list(iter_questions(questions_file))
    batches = [questions[i : i + BATCH] for i in range(0, len(questions), BATCH)]
    engine = EngineSettings(index=IndexSettings(index_dir))
    with out.open("w", encoding="utf-8") as lines:
        started = time.perf_counter()
        with BatchAnswerer(engine, BatchSettings(workers=workers)) as answerer:
            for _, answer, _ in answerer.run(batches):
                lines.write(answer_line(answer) + "\n")
        seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
