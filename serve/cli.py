"""`python -m serve --index INDEX_DIR`: answer questions over HTTP, each answer's evidence shown on its page.

    python -m serve --index INDEX_DIR [--host 127.0.0.1] [--port 8000]
                    [--backend embedded|elasticsearch] [--es-url URL] [--es-index NAME] [--llm PATH|none]

(`finqa serve …` runs it.) It binds to 127.0.0.1, this machine only, unless
--host names another address. The server has no authentication and no TLS:
anyone who can reach the port can ask questions, list the documents and see
their pages. Serve beyond the machine only on a network you trust, or behind a
proxy that authenticates and encrypts.

Exit codes: 0 stopped (Ctrl-C); 2 bad usage or an index that cannot be used
(one line on stderr).
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import sys
from pathlib import Path

from core.command_names import command_name
from core.errors import InputError
from core.logs import add_verbosity, configure, level
from qa.engine import EngineSettings
from qa.run import add_engine_options, check_is_index
from search.settings import index_settings

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
log = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=command_name("serve"), description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", type=Path, required=True, help="index directory an ingest made")
    ap.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default {DEFAULT_HOST}: this machine only; any other "
        "address lets the network ask questions and read the documents, with no "
        "authentication)",
    )
    ap.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    add_engine_options(ap, "the one INDEX_DIR records")
    add_verbosity(ap)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure(args)
    try:
        app = _app(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    import uvicorn  # present: serve.app, which needs Starlette from the same extra, imported

    if not _loopback(args.host):
        log.warning(
            f"serving on {args.host}: anyone who can reach port {args.port} can ask questions and "
            "read the indexed documents (no authentication, no TLS)"
        )
    print(f"finqa serve: http://{args.host}:{args.port}/ (Ctrl-C stops)", file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level=logging.getLevelName(level(args)).lower())
    return 0


def _app(args: argparse.Namespace):
    if not 0 < args.port < 65536:
        raise InputError(f"--port must be 1 to 65535, got {args.port}")
    index = index_settings(args.index, args.backend, args.es_url, args.es_index)
    check_is_index(index)
    try:
        from serve.app import create_app  # Starlette loads only when there is an index to serve
    except ModuleNotFoundError as exc:
        raise InputError(
            f"finqa serve needs the serve extra ({exc.name} is missing): pip install 'finqa[serve]'"
        ) from None
    return create_app(EngineSettings(index=index, llm=args.llm))


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


if __name__ == "__main__":
    sys.exit(main())
