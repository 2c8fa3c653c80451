"""A Web Push service on loopback (RFC 8030) for the tests and bench/push.py: it takes a push
message at its endpoints over HTTPS, checks the VAPID authorization (RFC 8292: an ES256 JWT for this
origin, not expired, with a subject, signed by the key in `k`), decrypts the body (RFC 8291,
`aes128gcm`) with the subscription's own keys, as the browser would, and answers what it is told:
201 by default, or 404/410/5xx for the next messages to an endpoint.

`Browser` is the subscriber's side: a P-256 key pair and an auth secret, and `subscription()` gives
the JSON a browser's `PushSubscription.toJSON()` gives.
"""

import base64
import datetime
import http.server
import ipaddress
import json
import os
import ssl
import tempfile
import threading
import time
from dataclasses import dataclass, field

import http_ece
import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def vapid_keys() -> tuple[str, str]:
    """A VAPID key pair as docs/deploy.md configures it: (the private key, base64url of its 32 bytes;
    the public key as browsers take it, base64url of the uncompressed point)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = b64url(key.private_numbers().private_value.to_bytes(32, "big"))
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return private, b64url(public)


@dataclass
class Browser:
    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self) -> dict:
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)},
        }

    def decrypt(self, body: bytes) -> dict:
        return json.loads(
            http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        )


@dataclass
class Received:
    path: str
    headers: dict  # names in lower case
    message: dict | None  # decrypted; None when the push was refused
    status: int


def _certificate(directory: str) -> tuple[str, str]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    return cert_path, key_path


class WebPushService:
    """Start with `with WebPushService() as service:`; `service.ca_file` is what clients must trust."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.browsers: dict[str, Browser] = {}
        self.answers: dict[str, list[int]] = {}  # path -> statuses to answer next (then 201)
        self.vapid_public_key: str | None = None  # when set, `k` must be this key
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)

    def __enter__(self) -> "WebPushService":
        self._dir = tempfile.TemporaryDirectory()
        self.ca_file, key_file = _certificate(self._dir.name)
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status, message = service._take(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                self.send_response(status)
                if status == 201:
                    self.send_header("Location", f"{self.path}/message/{len(service.received)}")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.ca_file, key_file)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.origin = f"https://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._dir.cleanup()

    def browser(self) -> Browser:
        path = f"/push/{b64url(os.urandom(12))}"
        browser = Browser(endpoint=f"{self.origin}{path}")
        self.browsers[path] = browser
        return browser

    def answer(self, browser: Browser, *statuses: int) -> None:
        self.answers.setdefault(browser.endpoint.removeprefix(self.origin), []).extend(statuses)

    def vapid_check(self, headers: dict) -> None:
        """RFC 8292 §2-3: `Authorization: vapid t=<JWT>, k=<public key>`."""
        scheme, _, params = headers.get("authorization", "").partition(" ")
        assert scheme.lower() == "vapid", headers.get("authorization")
        values = dict(part.strip().split("=", 1) for part in params.split(","))
        key_bytes = b64url_decode(values["k"])
        if self.vapid_public_key is not None:
            assert values["k"] == self.vapid_public_key
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key_bytes)
        claims = jwt.decode(values["t"], key=public, algorithms=["ES256"], audience=self.origin)
        assert claims["exp"] > time.time() and claims["exp"] <= time.time() + 24 * 3600
        assert claims["sub"].startswith(("mailto:", "https:"))

    def _take(self, path: str, headers: dict, body: bytes) -> tuple[int, dict | None]:
        with self.lock:
            queued = self.answers.get(path)
            status = queued.pop(0) if queued else 201
            browser = self.browsers.get(path)
            if browser is None:
                status = 404
            message = None
            if status == 201:
                try:
                    self.vapid_check(headers)
                    assert headers.get("content-encoding") == "aes128gcm"
                    assert int(headers["ttl"]) >= 0
                    message = browser.decrypt(body)
                except Exception as exc:  # noqa: BLE001 - a push the service refuses
                    status, message = 400, {"refused": repr(exc)}
            self.received.append(Received(path, headers, message, status))
            self.arrived.notify_all()
            return status, message

    def delivered(self, browser: Browser) -> list[dict]:
        """The messages this browser got, decrypted, in order."""
        path = browser.endpoint.removeprefix(self.origin)
        return [r.message for r in self.received if r.path == path and r.status == 201]
