"""A webhook receiver on loopback: a small HTTP server thread that records what it is sent.

`Receiver(statuses=[500, 500])` answers 500 twice, then 200; `hold` (a threading.Event) makes every
request wait until it is set, to catch a sender in the middle of an attempt.
"""

import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    def __init__(self, *, statuses: list[int] | None = None, host: str = "127.0.0.1", redirect_to: str = ""):
        self.statuses = list(statuses or [])
        self.received: list[Received] = []
        self.redirect_to = redirect_to
        self.hold: threading.Event | None = None
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver._lock:
                    receiver.received.append(Received(self.path, dict(self.headers.items()), body))
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                if receiver.hold is not None:
                    receiver.hold.wait(30)
                if receiver.redirect_to:
                    self.send_response(302)
                    self.send_header("Location", receiver.redirect_to)
                else:
                    self.send_response(status)
                payload = f"answer {status}".encode()
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/hook"

    def __enter__(self) -> "Receiver":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.hold is not None:
            self.hold.set()
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, count: int, timeout: float = 30) -> list[Received]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                if len(self.received) >= count:
                    return list(self.received)
            time.sleep(0.05)
        raise AssertionError(f"{len(self.received)} requests received, {count} expected")
