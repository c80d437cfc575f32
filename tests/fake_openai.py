"""A fake OpenAI-compatible chat endpoint on the loopback, for the openai judge's tests and
bench/answers.py: it reads the shipped prompts' text and claim back out of each request and
answers as the stub judge does (a claim is asserted when its words occur in the text).

Its behaviour is set on the server object: ``delay`` (seconds before each answer),
``fail_first`` (that many requests get ``fail_status`` before any succeeds), ``status``
(answer every request with this status), ``reply`` (a fixed message content), ``raw`` (a
fixed body instead of a chat completion, as content type and bytes), ``answer`` (a function
from the request's messages to the message content, for prompts other than the judges'). It
counts
``requests`` and the most requests in flight at once (``peak``)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_BLOCK = re.compile(r'"""\n(.*?)\n"""', re.S)


def _norm(text: str) -> str:
    return " ".join(text.lower().replace(".", " ").split())


def decide(prompt: str) -> str:
    blocks = _BLOCK.findall(prompt)
    if prompt.startswith("Split the text"):
        parts = [p.strip() for p in blocks[0].split(". ") if p.strip()]
        return json.dumps({"statements": parts})
    if "decline" in prompt:
        verdict = "yes" if "don't know" in blocks[0].lower() else "no"
        return json.dumps({"verdict": verdict, "reason": "fake"})
    text, claim = blocks[0], blocks[1]
    verdict = "yes" if _norm(claim) in _norm(text) else "no"
    return json.dumps({"verdict": verdict, "reason": "fake"})


class FakeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.delay = 0.0
        self.fail_first = 0
        self.fail_status = 429
        self.status: int | None = None
        self.reply: str | None = None
        self.raw: tuple[str, bytes] | None = None
        self.answer: Callable[[list[dict[str, Any]]], str] | None = None
        self.requests = 0
        self.in_flight = 0
        self.peak = 0
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: FakeServer
    protocol_version = "HTTP/1.1"
    # one write per answer, sent at once: headers and body in separate small writes would
    # wait on the client's delayed acknowledgement (Nagle), adding ~40 ms to every request
    wbufsize = -1
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 429:
            self.send_header("retry-after-ms", "10")
        self.end_headers()
        self.wfile.write(data)

    def _send_raw(self, content_type: str, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        server = self.server
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length))
        with server.lock:
            server.requests += 1
            number = server.requests
            server.in_flight += 1
            server.peak = max(server.peak, server.in_flight)
        try:
            if server.delay:
                time.sleep(server.delay)
            if server.status is not None:
                self._send(server.status, {"error": {"message": "refused", "type": "x"}})
                return
            if number <= server.fail_first:
                self._send(server.fail_status, {"error": {"message": "busy", "type": "x"}})
                return
            if server.raw is not None:
                self._send_raw(*server.raw)
                return
            if server.reply is not None:
                content = server.reply
            elif server.answer is not None:
                content = server.answer(body["messages"])
            else:
                content = decide(body["messages"][0]["content"])
            self._send(
                200,
                {
                    "id": f"chatcmpl-{number}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
                },
            )
        finally:
            with server.lock:
                server.in_flight -= 1
