"""Credentials for Elasticsearch: an API key or basic auth, and a CA certificate; never printed.

They come from the environment, else from a config file (YAML), else there
are none (a server without security, as docker/elasticsearch.sh runs):

    FINQA_ES_API_KEY      an API key ("id:key" or the base64 form the server prints)
    FINQA_ES_USERNAME     basic auth user ...
    FINQA_ES_PASSWORD     ... and password
    FINQA_ES_CA_CERTS     a PEM file of the CA that signed the server's certificate
    FINQA_ES_CONFIG       the config file (default ~/.config/finqa/elasticsearch.yaml), keys
                          api_key, username, password, ca_certs (relative to the file)

A variable set in the environment wins over the same key in the file. A URL
may also carry `user:password@`; it is stripped from anything shown.

Secrets are `Secret` objects whose str and repr are "***", and every message
about a server goes through `scrub`, so no log line, report, trace or error
carries them.

>>> auth = ElasticAuth.load()
>>> Elasticsearch(url, **auth.client_options())
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from core.errors import InputError
from core.rulefile import RuleFile

CONFIG_ENV = "FINQA_ES_CONFIG"
DEFAULT_CONFIG = Path("~/.config/finqa/elasticsearch.yaml")
ENV = {
    "api_key": "FINQA_ES_API_KEY",
    "username": "FINQA_ES_USERNAME",
    "password": "FINQA_ES_PASSWORD",
    "ca_certs": "FINQA_ES_CA_CERTS",
}
MASK = "***"
CONFIG_SCHEMA = {
    "type": ["object", "null"],
    "additionalProperties": False,
    "properties": {key: {"type": "string", "minLength": 1} for key in ENV},
}
_USERINFO = re.compile(r"(?<=//)[^/@\s]+@")


class Secret:
    """A credential: shown as "***" whatever prints it; `reveal()` gives the value to the client only."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __str__(self) -> str:
        return MASK

    def __repr__(self) -> str:
        return f"Secret({MASK!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self):  # no pickling into a file or a worker's arguments
        raise TypeError("a Secret is not pickled")


@dataclass(frozen=True)
class ElasticAuth:
    """How to authenticate to the server; validated on construction. `source` says where it came from."""

    api_key: Secret | None = None
    username: str = ""
    password: Secret | None = None
    ca_certs: Path | None = None
    source: str = "none"

    def __post_init__(self):
        if self.api_key is not None and (self.username or self.password is not None):
            raise InputError(f"give an API key or a user name and password, not both ({self.source})")
        if bool(self.username) != (self.password is not None):
            raise InputError(f"basic auth needs both a user name and a password ({self.source})")
        if self.ca_certs is not None and not Path(self.ca_certs).is_file():
            raise InputError(f"CA certificate file not found ({self.source})", str(self.ca_certs))

    @classmethod
    def load(cls, environ: dict | None = None) -> ElasticAuth:
        """The credentials of the environment, then of the config file; InputError names what is wrong."""
        environ = os.environ if environ is None else environ
        config = Path(environ.get(CONFIG_ENV) or DEFAULT_CONFIG).expanduser()
        values: dict[str, str] = {}
        sources = []
        if environ.get(CONFIG_ENV) or config.is_file():
            rule_file = RuleFile.load(config, schema=CONFIG_SCHEMA)
            values.update(rule_file.data or {})
            if values.get("ca_certs"):
                values["ca_certs"] = str(config.parent / Path(values["ca_certs"]).expanduser())
            sources.append(str(config))
        from_env = {key: environ[name] for key, name in ENV.items() if environ.get(name)}
        if from_env:
            values.update(from_env)
            sources.append("environment " + ", ".join(ENV[k] for k in from_env))
        return cls(
            api_key=Secret(values["api_key"]) if values.get("api_key") else None,
            username=values.get("username", ""),
            password=Secret(values["password"]) if values.get("password") else None,
            ca_certs=Path(values["ca_certs"]).expanduser() if values.get("ca_certs") else None,
            source=" and ".join(sources) or "none",
        )

    def client_options(self) -> dict:
        """Keyword arguments for `elasticsearch.Elasticsearch` (the secrets revealed here only)."""
        options: dict = {}
        if self.api_key is not None:
            key = self.api_key.reveal()
            options["api_key"] = tuple(key.split(":", 1)) if ":" in key else key  # "id:key" or its base64
        if self.username:
            options["basic_auth"] = (self.username, self.password.reveal())
        if self.ca_certs is not None:
            options["ca_certs"] = str(self.ca_certs)
        return options

    def secrets(self) -> list[str]:
        """Every form a secret could be printed in: as given and as sent (base64 in the header)."""
        found = [s.reveal() for s in (self.api_key, self.password) if s is not None]
        if self.api_key is not None:
            found.append(base64.b64encode(self.api_key.reveal().encode()).decode())
        if self.username:
            found.append(base64.b64encode(f"{self.username}:{self.password.reveal()}".encode()).decode())
        return found


def public_url(url: str) -> str:
    """The URL without `user:password@`, for messages."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return _USERINFO.sub(f"{MASK}@", url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=f"{MASK}@" + parts.netloc.rsplit("@", 1)[1]))


def scrub(text: str, auth: ElasticAuth | None = None, url: str = "") -> str:
    """`text` with every credential (the auth's secrets, a URL's user:password@) replaced by ***."""
    secrets = auth.secrets() if auth is not None else []
    if url and "@" in url:
        userinfo = urlsplit(url).netloc.rsplit("@", 1)[0]
        secrets += [userinfo, *userinfo.split(":", 1)[1:]]  # the user name alone is no secret
    for secret in sorted(filter(None, secrets), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return _USERINFO.sub(f"{MASK}@", text)
