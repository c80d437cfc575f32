"""The ``openai`` judge: any OpenAI-compatible chat endpoint, through the ``openai`` SDK
(``pip install 'evalset[openai]'``).

Each request is one chat completion whose prompt is a file: ``entails.txt``,
``refuses.txt`` and ``statements.txt`` ship with evalset, and a ``prompts`` folder in the
judge's settings overrides any of them (``{text}`` and ``{claim}`` are replaced; a file
lacking a field its request fills, or holding a word in braces that is none, is refused).
The model replies with a JSON object (``{"verdict": "yes", "reason": ...}`` or
``{"statements": [...]}``), read wherever it stands among prose and code fences (two that
differ are no answer); a reply that starts with a bare yes or no (``No.``, ``Yes, it
does``, not ``No doubt``) is read too. Requests run concurrently up to ``concurrency``; the
SDK retries rate limits, timeouts and server errors with exponential backoff (``retries``
times). Tokens come from the replies' usage, and cost from the prices
per million tokens when they are configured.

A request the endpoint refuses (a bad request, a content filter) or whose reply is neither
yes nor no is reported on its item. An endpoint that cannot be reached, does not answer in
time after its retries, refuses the key, or has no such model stops the scoring.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from evalset.fsio import finite_number, not_a_file, read_found
from evalset.score.judges.base import Judge, JudgeBroken, JudgeFailed, Statements, Verdict

PROMPTS = ("entails", "refuses", "statements")
FIELDS = {"entails": ("text", "claim"), "refuses": ("text",), "statements": ("text",)}
"""The fields each prompt is filled with (``fill``), all of which it must hold."""
_SHOWN = {"text": "the text it judges", "claim": "the claim it checks"}
_OBJECTS_TRIED = 100
"""The most ``{`` of one reply tried as the start of a JSON object (each try may read to the
reply's end: a reply of braces alone would take time with the square of its length)."""
_FIELD = re.compile(r"\{(text|claim)\}")
_WORD_IN_BRACES = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""What a field looks like: one word in braces. Braces around anything else (the JSON the
shipped prompts ask for, ``{"verdict": "yes" or "no"}``) are the prompt's own text."""
_BARE_VERDICT = re.compile(
    r"[\W_]*(yes|no)[*_`\"'\u2019\u201d)\]]*"
    r"(?:[.,:;!\u2026]|\s*\(|[ \t]*(?:[\r\n]|$)|\s*(?:--|[-\u2013\u2014])\s)",
    re.I,
)
"""A reply that starts with a bare yes or no: the word alone, or followed by ``.``, ``,``,
``:``, ``;``, ``!``, ``…``, a bracket opening an aside, a dash (``-``, ``--``, an en or em
dash) before a space or the end of its line, whichever line ending (after markup or a
quote closing it, as in ``**No**.`` or `` `yes` ``). Followed by anything else, the word
may be the start of something else: "No doubt", "No problem" and "No question" say yes,
"Yes and no" neither, "No-one" is a word."""


@dataclass(frozen=True)
class OpenAISettings:
    """The settings of an ``openai`` judge (a ``[judges.NAME]`` table with kind "openai")."""

    model: str
    base_url: str | None = None
    """Default: ``OPENAI_BASE_URL`` from the environment, else OpenAI's own."""
    api_key: str | None = None
    """Prefer ``api_key_env``: a key in a committed file is a leaked key."""
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8
    retries: int = 3
    timeout: float = 60.0
    temperature: float = 0.0
    prompts: str | None = None
    """A folder (from the workspace root) whose entails.txt, refuses.txt or statements.txt
    replace the shipped prompts."""
    price_input: float | None = None
    """Price per million prompt tokens, for the report's cost."""
    price_output: float | None = None
    version: str | None = None


def shown_url(url: str) -> str:
    """An endpoint's URL as reports and messages show it: what may be a secret in it, the
    user and password before its host (``https://user:key@proxy/v1``) and the values of its
    query (``?api-key=...``, as some gateways take the key), written ``***``. Reports are
    committed and posted to pull requests, and messages land in CI logs."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    netloc = f"***@{host}" if "@" in parts.netloc else host
    query = urlencode([(k, "***") for k, _ in parse_qsl(parts.query, keep_blank_values=True)],
                      safe="*")  # fmt: skip
    return urlunsplit((parts.scheme, netloc, _slashed(parts.path), query, ""))


def _slashed(path: str) -> str:
    """A base URL's path as the SDK joins paths to it, with its last slash: versions of the
    SDK write a base URL with a query with it (3.x) or without it (1.x), and a report, or a
    judge's version, would depend on which was installed."""
    return path if path.endswith("/") else path + "/"


def endpoint_url(url: str) -> str:
    """The whole URL of an endpoint, secrets included, written one way (``_slashed``)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=_slashed(parts.path)))


def load_prompts(folder: Path | None) -> dict[str, str]:
    """The prompts, the shipped ones replaced by the files of ``folder``. A name there
    that is no file (a named pipe, a folder, a symlink to nothing) is refused, in one
    sentence, without waiting: the folder is named by the configuration, not a path given
    as a stream, and the shipped prompt used instead would judge with another prompt
    without a word."""
    found = {}
    shipped = resources.files("evalset.score.judges") / "prompts"
    for name in PROMPTS:
        own = folder / f"{name}.txt" if folder is not None else None
        refused = not_a_file(own) if own is not None else None
        if refused is not None:  # named by the configuration: never the shipped one instead
            fix = "remove it to use the shipped prompt, or put the prompt there as a file"
            raise JudgeBroken(refused.sentence("prompt file", fix))
        if own is not None and own.is_file():
            try:
                found[name] = read_found(own).decode("utf-8").removeprefix("\ufeff")
            except (OSError, UnicodeDecodeError) as exc:
                raise JudgeBroken(f"{own}: cannot be read as a prompt ({exc}).") from None
            _check_fields(own, name, found[name])
        else:
            found[name] = (shipped / f"{name}.txt").read_text(encoding="utf-8")
    return found


def _check_fields(path: Path, name: str, text: str) -> None:
    """Refuse a prompt the model could not judge with: one that lacks a field its request
    fills (the model would never see the claim), or holds a word in braces that is no
    field of it (``{claims}``, ``{Claim}``, ``{claim}`` in refuses.txt), which ``fill``
    would leave as it is, sending the model the literal word instead of what it names."""
    fields = FIELDS[name]
    listed = " and ".join(f"{{{field}}}" for field in fields)
    listed = f"are {listed}" if len(fields) > 1 else f"is {listed}"
    for word in _WORD_IN_BRACES.finditer(text):
        if word[1] not in fields:
            line = text.count("\n", 0, word.start()) + 1
            close = difflib.get_close_matches(word[1].lower(), fields, n=1, cutoff=0.6)
            hint = f" (did you mean {{{close[0]}}}?)" if close else ""
            raise JudgeBroken(
                f"{path}:{line}: {word[0]} is no field of the {name} prompt{hint}; its "
                f"field{'s' if len(fields) > 1 else ''} {listed} (to send braces around a word "
                f"as they are, put a space inside them: {{ {word[1]} }})."
            )
    for field in fields:
        if f"{{{field}}}" not in text:
            raise JudgeBroken(
                f"{path}: has no {{{field}}}, so the model would never see {_SHOWN[field]}; "
                f"add {{{field}}} where it belongs."
            )


def fill(template: str, **values: str) -> str:
    """The prompt with ``{text}`` and ``{claim}`` replaced, in one pass (other braces, and
    braces in the values, are left alone)."""
    return _FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _objects(reply: str, key: str) -> list[dict[str, Any]]:
    """The JSON objects of a reply that hold ``key``, in order. A model wraps its object in
    a code fence, or writes prose around it, and the prose may hold braces of its own (``I
    checked {claim}``): each ``{`` that starts an object is read, and the rest is not."""
    decoder = json.JSONDecoder()
    found = []
    at = reply.find("{")
    for _ in range(_OBJECTS_TRIED):
        if at == -1:
            break
        try:
            value, end = decoder.raw_decode(reply, at)
        except (ValueError, RecursionError):  # no object starts there (or one nested deeper
            # than Python reads)
            at = reply.find("{", at + 1)
            continue
        if isinstance(value, dict) and key in value:
            found.append(value)
        at = reply.find("{", end)
    return found


def read_verdict(reply: str) -> tuple[bool, str | None]:
    """yes/no and the reason from a model's reply; JudgeFailed when it says neither, or
    gives two verdicts that differ."""
    verdicts = []
    for data in _objects(reply, "verdict"):
        value = data["verdict"]
        reason = data.get("reason") if isinstance(data.get("reason"), str) else None
        if isinstance(value, str) and value.strip().lower() in ("yes", "no", "true", "false"):
            value = value.strip().lower() in ("yes", "true")
        if not isinstance(value, bool):  # a verdict given, and not yes or no: no word around
            # it is
            raise JudgeFailed(f"the model replied {reply.strip()[:80]!r}, neither yes nor no")
        verdicts.append((value, reason))
    if verdicts:
        if len({value for value, _ in verdicts}) > 1:
            raise JudgeFailed(f"the model replied {reply.strip()[:80]!r}, both yes and no")
        return verdicts[0]
    word = _BARE_VERDICT.match(reply)
    if word:
        return word.group(1).lower() == "yes", None
    shown = reply.strip()[:80]
    raise JudgeFailed(f"the model replied {shown!r}, neither yes nor no")


def read_statements(reply: str) -> tuple[str, ...]:
    """The statements of a model's reply (its first object holding them); JudgeFailed when
    it gives none, or two lists that differ."""
    given = [data["statements"] for data in _objects(reply, "statements")]
    found = given[0] if given and all(g == given[0] for g in given) else None
    if not isinstance(found, list) or not all(isinstance(s, str) for s in found):
        raise JudgeFailed(f"the model replied {reply.strip()[:80]!r}, not a list of statements")
    return tuple(s for s in found if s.strip())


def _message(reply: Any) -> tuple[str | None, dict[str, Any] | None]:
    """The first choice's message text (None when there is none) and the usage (None when
    there is none) of a chat completion as JSON."""
    if not isinstance(reply, dict):
        return None, None
    choices = reply.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    text = message.get("content") if isinstance(message, dict) else None
    usage = reply.get("usage")
    return (text if isinstance(text, str) else None), (usage if isinstance(usage, dict) else None)


_COUNTS = ("prompt_tokens", "completion_tokens", "total_tokens")


def _count(value: Any) -> float:
    """A token count as given (whole or not), 0 when it is not a number from 0."""
    return value if finite_number(value) and value >= 0 else 0


class OpenAIJudge(Judge):
    """An OpenAI-compatible chat model deciding with the prompts."""

    def __init__(self, settings: OpenAISettings, root: Path) -> None:
        try:
            import openai
        except ImportError:
            raise JudgeBroken(
                "the openai judge needs the openai package, which is not installed; install it "
                "with `pip install 'evalset[openai]'`."
            ) from None
        self._openai = openai
        self.settings = settings
        folder = root / settings.prompts if settings.prompts else None
        if folder is not None and not folder.is_dir():
            raise JudgeBroken(f"{folder}: the judge's prompts folder does not exist; create it "
                              "or remove `prompts` from the judge's settings.")  # fmt: skip
        self.prompts = load_prompts(folder)
        self.prompt_files = [
            folder / f"{name}.txt"
            for name in PROMPTS
            if folder and (folder / f"{name}.txt").is_file()
        ]
        base_url = settings.base_url or os.environ.get("OPENAI_BASE_URL")
        key = settings.api_key or os.environ.get(settings.api_key_env)
        if not key:
            raise JudgeBroken(
                f"the openai judge has no API key: set {settings.api_key_env} in the "
                "environment (or api_key_env in the judge's settings)."
            )
        self.client = openai.OpenAI(
            base_url=base_url,
            api_key=key,
            max_retries=settings.retries,
            timeout=settings.timeout,
        )
        # all of it in the version (another key, another judge), one way whatever the SDK
        url = endpoint_url(str(self.client.base_url))
        self.base_url = shown_url(url)
        self.name = f"openai:{settings.model}"
        self.concurrency = settings.concurrency
        digest = hashlib.sha256(
            json.dumps(
                [settings.model, settings.temperature, url, self.prompts],
                sort_keys=True,
            ).encode()
        ).hexdigest()[:16]
        self.version = f"{settings.version}+{digest}" if settings.version else digest
        self.description = f"chat model {settings.model} at {self.base_url}"

    def describe(self) -> dict[str, Any]:
        found = super().describe()
        found["model"] = self.settings.model
        found["base_url"] = self.base_url
        found["prompts"] = {
            name: "sha256:" + hashlib.sha256(text.encode()).hexdigest()
            for name, text in self.prompts.items()
        }
        return found

    def _complete(self, prompt: str) -> tuple[str, float | None, int | None]:
        openai = self._openai
        try:
            # the SDK's plain POST: its base URL, key, retries and errors, without turning the
            # request into typed parameters and the reply into models (most of its time per
            # call, which limits how many calls a core can keep in flight)
            reply = self.client.post(
                "/chat/completions",
                cast_to=object,
                body={
                    "model": self.settings.model,
                    "messages": [{"role": "user", "content": prompt}],
                    "temperature": self.settings.temperature,
                },
            )
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise JudgeBroken(
                f"the openai judge's endpoint {self.base_url} refused the key (status "
                f"{exc.status_code}); check {self.settings.api_key_env}."
            ) from None
        except openai.NotFoundError:
            raise JudgeBroken(
                f"the openai judge's endpoint {self.base_url} has no model "
                f"{self.settings.model!r} (status 404); name a model it serves."
            ) from None
        except openai.APITimeoutError:
            raise JudgeBroken(
                f"the openai judge's endpoint {self.base_url} gave no answer within "
                f"{self.settings.timeout:g} s, {self.settings.retries} retries included "
                "(timeout); check the endpoint, or raise `timeout` in the judge's settings."
            ) from None
        except openai.APIConnectionError:
            raise JudgeBroken(
                f"the openai judge cannot reach {self.base_url}; check the base URL "
                "(base_url, or OPENAI_BASE_URL) and that the endpoint is up."
            ) from None
        except openai.APIStatusError as exc:
            raise JudgeFailed(f"the endpoint answered status {exc.status_code}") from None
        except UnicodeEncodeError:  # a lone surrogate (a JSON run file can hold one)
            raise JudgeFailed(
                "the text holds a character that cannot be sent (a lone surrogate)"
            ) from None
        except (ValueError, RecursionError):  # said it was JSON, and was not: not UTF-8
            # (UnicodeDecodeError), not JSON, a number of more digits than Python reads
            raise JudgeFailed("the endpoint's reply is not JSON that can be read") from None
        if isinstance(reply, str):  # a reply not labelled JSON: the SDK gives its text
            try:
                reply = json.loads(reply)
            except ValueError:
                raise JudgeFailed("the endpoint's reply is not JSON") from None
        text, usage = _message(reply)
        if text is None:
            raise JudgeFailed("the endpoint's reply holds no message")
        if usage is not None:
            negative = next(
                (k for k in _COUNTS if finite_number(usage.get(k)) and usage[k] < 0), None
            )
            if negative:  # an endpoint that counts wrongly: its totals would lie
                raise JudgeFailed(
                    f"the endpoint's reply gives a negative token count ({negative} "
                    f"{usage[negative]!r})"
                )
        tokens = usage.get("total_tokens") if usage is not None else None
        cost = None
        s = self.settings
        if usage is not None and s.price_input is not None and s.price_output is not None:
            prompt_tokens = _count(usage.get("prompt_tokens"))
            completion = _count(usage.get("completion_tokens"))
            cost = (prompt_tokens * s.price_input + completion * s.price_output) / 1_000_000
            if not math.isfinite(cost):  # JSON holds no infinity
                raise JudgeFailed(
                    "the endpoint's reply gives token counts whose cost is beyond the largest "
                    f"number a report holds (prompt_tokens {usage.get('prompt_tokens')!r}, "
                    f"completion_tokens {usage.get('completion_tokens')!r})"
                )
        return text, cost, tokens if finite_number(tokens) and type(tokens) is int else None

    def files(self) -> list[Path]:
        return list(self.prompt_files)

    def entails(self, text: str, claim: str) -> Verdict:
        reply, cost, tokens = self._complete(fill(self.prompts["entails"], text=text, claim=claim))
        value, reason = read_verdict(reply)
        return Verdict(value, reason, cost, tokens)

    def refuses(self, answer: str) -> Verdict:
        reply, cost, tokens = self._complete(fill(self.prompts["refuses"], text=answer))
        value, reason = read_verdict(reply)
        return Verdict(value, reason, cost, tokens)

    def statements(self, text: str) -> Statements | None:
        reply, cost, tokens = self._complete(fill(self.prompts["statements"], text=text))
        return Statements(read_statements(reply), cost, tokens)

    def close(self) -> None:
        self.client.close()
