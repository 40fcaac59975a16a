"""The HTTP application of `finqa serve` (Starlette): answers, documents, pages with their evidence drawn.

    GET  /                                   the page: a question box, the answer, route, type and evidence
    POST /ask                                one question ({"id", "question"}) or a list, in any qa.run input
                                             form -> qa.run's output record, or a list of them
    GET  /documents                          the documents of the index's manifest
    GET  /documents/{doc}/pages/{n}.png      page n of a PDF; ?highlight=TEXT draws the evidence quoting TEXT
    GET  /documents/{doc}/cells/{cell}.html  an HTML report's table with that cell marked

One engine answers every request, opened when the server starts. It runs on
one thread of its own, so its batch caches and its stores' connections are
never used by two requests at once (requests queue for it, pages render
meanwhile). Bad input is a 4xx response `{"error": "one line"}`; a damaged
index file (StoreError) is a 500 saying which, any other failure a 500 with
one line too; never a traceback.
"""

from __future__ import annotations

import json
import logging
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from core.errors import InputError, StoreError
from qa.engine import Engine, EngineSettings
from qa.io.batch import BatchSettings, answer_batch
from qa.io.question_stream import clean_question
from qa.io.questions import JsonFile, parse_questions
from qa.run import BATCH
from serve.documents import BadRequest, Library, NotFound

MAX_BODY_BYTES = 10 * 1024 * 1024  # a list of many thousand questions; more is a file for qa.run
PAGE = (Path(__file__).parent / "page.html").read_text(encoding="utf-8")
log = logging.getLogger("finqa.serve")


class Answering:
    """The engine and the one thread it runs on."""

    def __init__(self, settings: EngineSettings):
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="finqa-engine")
        self.engine: Engine = self.thread.submit(Engine, settings).result()

    async def answer(self, questions: list) -> list[dict]:
        def work() -> list[dict]:
            out = []
            for start in range(0, len(questions), BATCH):
                answered = answer_batch(self.engine, questions[start : start + BATCH], BatchSettings())
                out += [answer.to_json(steps) for answer, steps in answered]
            return out

        future = self.thread.submit(work)
        return await run_in_threadpool(future.result)

    def close(self) -> None:
        self.thread.submit(self.engine.close).result()
        self.thread.shutdown()


def create_app(settings: EngineSettings) -> Starlette:
    """The application over one index; the engine opens here (InputError when the index cannot be used)."""
    library = Library(settings.index)
    answering = Answering(settings)

    @asynccontextmanager
    async def lifespan(_app):
        try:
            yield
        finally:
            answering.close()

    async def page(_request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE)

    async def ask(request: Request) -> JSONResponse:
        data = _json_body(await request.body())
        questions = [clean_question(q) for q in parse_questions(JsonFile(Path("request"), data))]
        answers = await answering.answer(questions)
        one = isinstance(data, dict) and isinstance(data.get("question"), str)
        return JSONResponse(answers[0] if one else answers)

    async def documents(_request: Request) -> JSONResponse:
        return JSONResponse(library.listing())

    async def page_image(request: Request) -> Response:
        doc, number = request.path_params["doc"], request.path_params["n"]
        highlight = request.query_params.get("highlight", "")
        png = await run_in_threadpool(library.page_png, doc, number, highlight)
        return Response(png, media_type="image/png")

    async def cell_table(request: Request) -> HTMLResponse:
        doc, cell = request.path_params["doc"], request.path_params["cell"]
        return HTMLResponse(await run_in_threadpool(library.table_html, doc, cell))

    async def failed(_request: Request, exc: Exception) -> JSONResponse:
        return _error_response(exc)

    routes = [
        Route("/", page),
        Route("/ask", ask, methods=["POST"]),
        Route("/documents", documents),
        Route("/documents/{doc:path}/pages/{n:int}.png", page_image),
        Route("/documents/{doc:path}/cells/{cell}.html", cell_table),
    ]
    handlers = {kind: failed for kind in (HTTPException, NotFound, BadRequest, InputError, Exception)}
    return Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)


def _json_body(body: bytes) -> object:
    """The request's JSON; HTTPException 413 / 400 saying what is wrong with it and where."""
    if len(body) > MAX_BODY_BYTES:
        raise HTTPException(413, f"the request body is over {MAX_BODY_BYTES // (1024 * 1024)} MB")
    try:
        return json.loads(body.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise HTTPException(400, f"the body is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise HTTPException(400, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise HTTPException(400, "JSON nested too deeply (over about 1,000 levels)") from None


def _error_response(exc: Exception) -> JSONResponse:
    """An error as JSON with its status: the request's fault 4xx, the index's or a bug's 500 (a bug's
    details go to the server log, not to the client)."""
    status = (
        exc.status_code
        if isinstance(exc, HTTPException)
        else 404
        if isinstance(exc, NotFound)
        else 500
        if isinstance(exc, StoreError)  # the index's fault, not the request's: said as is
        else 400
        if isinstance(exc, (BadRequest, InputError))
        else 500
    )
    reason = exc.detail if isinstance(exc, HTTPException) else str(exc)
    if status == 500 and not isinstance(exc, StoreError):
        log.error("unexpected %s: %s", type(exc).__name__, exc)
        reason = f"internal error ({type(exc).__name__}); the server log has the details"
    return JSONResponse({"error": " ".join(str(reason).split())}, status_code=status)
