"""FCM on loopback for the tests: Google's OAuth token endpoint and the FCM HTTP v1 API behind the
tunnel of tests/push/tunnel.py (HTTP/1.1, as firebase-admin's requests session speaks it).

`service_account()` writes a service-account JSON file like the one the Firebase console gives (a
fresh RSA key, `token_uri` Google's own). `POST oauth2.googleapis.com/token` takes the JWT-bearer
grant (RFC 7523) signed with that key and hands out an access token; `POST fcm.googleapis.com/v1/
projects/<project>/messages:send` takes a message with that bearer token, keeps it, and answers
`200 {"name"}`, or what `answer(token, status, …)` queued for a device token: 404 `UNREGISTERED`,
400 `INVALID_ARGUMENT`, 500 `INTERNAL`, 503 `UNAVAILABLE` (Google's error body, the FCM error code
in its details), 502 (a front end's page, no JSON). A token the test did not make is `UNREGISTERED`.
"""

import http.server
import json
import os
import secrets
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.push.tunnel import TunnelPeer

TOKEN_URI = "https://oauth2.googleapis.com/token"
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
CLOUD_SCOPE = "https://www.googleapis.com/auth/cloud-platform"

ERRORS = {
    400: ("INVALID_ARGUMENT", "INVALID_ARGUMENT"),
    404: ("NOT_FOUND", "UNREGISTERED"),
    429: ("RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"),
    500: ("INTERNAL", "INTERNAL"),
    503: ("UNAVAILABLE", "UNAVAILABLE"),
}


@dataclass
class Received:
    token: str
    headers: dict  # names in lower case
    message: dict  # the request's `message`
    status: int


class FCMService(TunnelPeer):
    HOSTS = ["fcm.googleapis.com", "oauth2.googleapis.com"]

    def __init__(self, *, project: str = "baohuang-test") -> None:
        self.project = project
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.client_email = f"firebase-adminsdk@{project}.iam.gserviceaccount.com"
        self.access_tokens: set[str] = set()
        self.token_requests = 0
        self.received: list[Received] = []
        self.tokens: set[str] = set()
        self.answers: dict[str, list[int]] = {}
        self.lock = threading.Lock()

    def service_account(self, directory: str) -> str:
        """The credential file FCM_CREDENTIALS_PATH names (docs/deploy.md)."""
        pem = self.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        path = os.path.join(directory, "service-account.json")
        with open(path, "w") as f:
            json.dump(
                {
                    "type": "service_account",
                    "project_id": self.project,
                    "private_key_id": secrets.token_hex(20),
                    "private_key": pem,
                    "client_email": self.client_email,
                    "client_id": "1",
                    "token_uri": TOKEN_URI,
                },
                f,
            )
        return path

    def device(self) -> str:
        token = f"{secrets.token_urlsafe(16)}:APA91b{secrets.token_urlsafe(100)}"  # an FCM token's shape
        self.tokens.add(token)
        return token

    def answer(self, token: str, *statuses: int) -> None:
        self.answers.setdefault(token, []).extend(statuses)

    def delivered(self, token: str) -> list[Received]:
        return [r for r in self.received if r.token == token and r.status == 200]

    def serve(self, host: str, tls: socket.socket) -> None:
        peer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # requests keeps the connection for the next call
            timeout = 30

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                headers = {k.lower(): v for k, v in self.headers.items()}
                if host == "oauth2.googleapis.com" and self.path == "/token":
                    status, answer = peer._token(body)
                else:
                    status, answer = peer._send(self.path, headers, body)
                data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header(
                    "Content-Type", "text/html" if isinstance(answer, bytes) else "application/json"
                )
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        Handler(tls, ("127.0.0.1", 0), None)

    def _token(self, body: bytes) -> tuple[int, dict]:
        form = dict(urllib.parse.parse_qsl(body.decode()))
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            return 400, {"error": "unsupported_grant_type"}
        try:
            claims = jwt.decode(
                form.get("assertion", ""), key=self.key.public_key(), algorithms=["RS256"], audience=TOKEN_URI
            )
        except jwt.PyJWTError as exc:
            return 400, {"error": "invalid_grant", "error_description": repr(exc)}
        if claims["iss"] != self.client_email or not {FCM_SCOPE, CLOUD_SCOPE} & set(claims["scope"].split()):
            return 400, {"error": "invalid_scope"}
        access_token = f"ya29.{secrets.token_urlsafe(32)}"
        with self.lock:
            self.access_tokens.add(access_token)
            self.token_requests += 1
        return 200, {"access_token": access_token, "expires_in": 3600, "token_type": "Bearer"}

    def _send(self, path: str, headers: dict, body: bytes) -> tuple[int, dict | bytes]:
        if path != f"/v1/projects/{self.project}/messages:send":
            return 404, _error(404, "NOT_FOUND", None)
        scheme, _, access_token = headers.get("authorization", "").partition(" ")
        if scheme != "Bearer" or access_token not in self.access_tokens:
            return 401, _error(401, "UNAUTHENTICATED", None)
        message = json.loads(body).get("message", {})
        token = message.get("token", "")
        with self.lock:
            queued = self.answers.get(token)
            status = queued.pop(0) if queued else (200 if token in self.tokens else 404)
            self.received.append(Received(token, headers, message, status))
        if status == 200:
            return 200, {"name": f"projects/{self.project}/messages/{int(time.time() * 1e6)}"}
        if status == 502:
            return 502, b"<html><body>502 Bad Gateway</body></html>"
        grpc_status, fcm_code = ERRORS[status]
        return status, _error(status, grpc_status, fcm_code)


def _error(code: int, status: str, fcm_code: str | None) -> dict:
    """Google's error body (google.rpc.Status), with FCM's error code in its details."""
    details = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": fcm_code}]
    return {
        "error": {
            "code": code,
            "message": status.lower(),
            "status": status,
            "details": details if fcm_code else [],
        }
    }
