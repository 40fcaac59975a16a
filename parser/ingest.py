"""`python -m parser.ingest`, the README's ingest command: kept here for the stable CLI; the code is ingestion/."""

import sys

from ingestion.cli import main

if __name__ == "__main__":
    sys.exit(main())
