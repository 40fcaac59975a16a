"""`python -m parser.ingest`, the README's ingest command: kept here for the stable CLI; the code is ingestion/."""

import sys

from core.processes import exit_interrupted_at_start


def main(argv: list[str] | None = None) -> int:
    try:  # the command's imports take a second or two: Ctrl-C then is one line as well
        from ingestion.cli import main as ingest
    except KeyboardInterrupt:
        exit_interrupted_at_start()
    return ingest(argv)


if __name__ == "__main__":
    sys.exit(main())
