"""`finqa model pull`: download a small instruct model in GGUF, check its hash, print its path.

    finqa model pull [--repo REPO] [--file NAME] [--sha256 HEX] [--from DIR_OR_URL]

From the Hugging Face hub by default, with huggingface_hub into its usual cache (where other tools
look for models); the file's SHA-256 is checked against the one the hub publishes for it (and against
--sha256 when given). `--from` takes a mirror instead: a folder or an http(s) URL holding the file
(a hub-like `REPO/NAME` or just `NAME`); its hash comes from --sha256 or from a `NAME.sha256` file next to
it, and the model goes to the user's cache (~/.cache/finqa/models). A file already there whose hash
matches is not fetched again. The printed path is what `--llm` takes; any other GGUF file or
Hugging Face model folder works too.

Exit codes: 0 the model is there (its path on stdout); 2 bad usage, a mirror without the file, a hash that
does not match (the file is removed), or no huggingface_hub; 1 the download failed.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from core.cache import user_cache
from core.command_names import command_name
from core.errors import InputError
from core.logs import add_verbosity, configure

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelFile:
    repo: str  # the hub repository ("Qwen/Qwen2.5-0.5B-Instruct-GGUF")
    name: str  # the file in it
    sha256: str = ""  # the expected hash; "" takes the hub's (or a mirror's NAME.sha256)


# Small enough for a laptop's CPU with llama.cpp (about 0.4 GB), and an instruct model with a chat template.
DEFAULT_MODEL = ModelFile("Qwen/Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q4_k_m.gguf")
_CHUNK = 1 << 20


def models_dir() -> Path:
    """Where models from a mirror go: the user's cache, as the bundled examples' index."""
    return user_cache() / "models"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def checked(path: Path, expected: str) -> Path:
    """`path`, when its SHA-256 is `expected`; else it is removed and that is an InputError."""
    found = file_sha256(path)
    if found != expected.lower():
        path.unlink(missing_ok=True)
        raise InputError(f"SHA-256 {found} is not the expected {expected} (the file was removed)", str(path))
    return path


def pull(model: ModelFile = DEFAULT_MODEL, source: str = "") -> Path:
    """The model file's local path, downloaded and hash-checked (from the hub, or the mirror `source`)."""
    return _from_mirror(model, source) if source else _from_hub(model)


def _from_hub(model: ModelFile) -> Path:
    try:
        from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url
    except ImportError:
        raise InputError(
            "huggingface_hub is not installed: pip install 'finqa[llama]' (or use --from)", model.repo
        ) from None
    try:
        published = get_hf_file_metadata(hf_hub_url(model.repo, model.name)).etag or ""
        path = Path(hf_hub_download(model.repo, model.name))
    except Exception as exc:  # noqa: BLE001 - network, authentication, a missing repository: one line
        raise OSError(f"{model.repo}/{model.name}: download failed: {type(exc).__name__}: {exc}") from None
    expected = model.sha256 or published.strip('"')
    if len(expected) != 64:  # only a file stored with Git LFS has its SHA-256 as its etag
        raise InputError(
            "the hub publishes no SHA-256 for this file: give --sha256", f"{model.repo}/{model.name}"
        )
    return checked(path, expected)


def _from_mirror(model: ModelFile, source: str) -> Path:
    target = models_dir() / model.repo / model.name
    candidates = [f"{model.repo}/{model.name}", model.name]  # a hub-like layout, or the file alone
    for relative in candidates:
        expected = model.sha256 or _read(source, f"{relative}.sha256").split(" ")[0].strip()
        if not _exists(source, relative):
            continue
        if not expected:
            raise InputError(
                f"no hash to check {relative} against: give --sha256 or put {relative}.sha256 in the mirror",
                source,
            )
        if target.is_file() and file_sha256(target) == expected.lower():
            return target  # already pulled
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".pull-", delete=False) as temp:
            _copy(source, relative, temp)
        os.replace(checked(Path(temp.name), expected), target)
        return target
    raise InputError(f"the mirror has neither {candidates[0]} nor {candidates[1]}", source)


def _is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def _exists(source: str, relative: str) -> bool:
    if not _is_url(source):
        return (Path(source) / relative).is_file()
    try:
        request = urllib.request.Request(f"{source.rstrip('/')}/{relative}", method="HEAD")
        with urllib.request.urlopen(request):
            return True
    except urllib.error.URLError:
        return False


def _read(source: str, relative: str) -> str:
    """A small text file of the mirror, or "" when it has none."""
    if not _is_url(source):
        path = Path(source) / relative
        return path.read_text(encoding="utf-8") if path.is_file() else ""
    try:
        with urllib.request.urlopen(f"{source.rstrip('/')}/{relative}") as response:
            return response.read().decode()
    except urllib.error.URLError:
        return ""


def _copy(source: str, relative: str, out) -> None:
    if not _is_url(source):
        with (Path(source) / relative).open("rb") as handle:
            shutil.copyfileobj(handle, out, _CHUNK)
        return
    with urllib.request.urlopen(f"{source.rstrip('/')}/{relative}") as response:
        shutil.copyfileobj(response, out, _CHUNK)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog=command_name("qa.llm.pull"), description="Download a small local model that phrases answers."
    )
    sub = ap.add_subparsers(dest="action", required=True, metavar="ACTION")
    run = sub.add_parser(
        "pull",
        help="download a GGUF model, check its SHA-256 and print its path",
        description=__doc__.split("\n\n")[0],
    )
    run.add_argument("--repo", default=DEFAULT_MODEL.repo, help="the hub repository (default: %(default)s)")
    run.add_argument("--file", default=DEFAULT_MODEL.name, help="the GGUF file in it (default: %(default)s)")
    run.add_argument(
        "--sha256",
        default="",
        metavar="HEX",
        help="the file's expected SHA-256 (default: the hub's, or the mirror's NAME.sha256)",
    )
    run.add_argument(
        "--from",
        dest="source",
        default="",
        metavar="DIR_OR_URL",
        help="a mirror to take the file from instead of the hub: a folder or an http(s) URL",
    )
    add_verbosity(run)
    args = ap.parse_args(argv)
    configure(args)
    try:
        path = pull(ModelFile(args.repo, args.file, args.sha256), args.source)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
