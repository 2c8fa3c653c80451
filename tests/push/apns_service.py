"""APNs on loopback for the tests: Apple's provider API (HTTP/2 over TLS, JSON) behind the tunnel of
tests/push/tunnel.py, served with the h2 library.

It takes `POST /3/device/<token>`, checks the provider token (`authorization: bearer <JWT>`, ES256,
`kid` the key id, `iss` the team id, signed by the key the test configured) and the `apns-topic`,
keeps the request's headers and JSON body, and answers as Apple does: `200` with the `apns-id`, or
an error status with `{"reason": …}` (`410` adds a `timestamp`). A token the test did not make is
`400 BadDeviceToken`; `answer(token, (status, reason), …)` queues the next answers for a token.
"""

import json
import os
import socket
import threading
import time
from dataclasses import dataclass

import h2.config
import h2.connection
import h2.events
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.push.tunnel import TunnelPeer


@dataclass
class Received:
    token: str
    headers: dict  # the request's, names in lower case
    payload: dict
    status: int
    reason: str | None


def auth_key(directory: str) -> tuple[str, ec.EllipticCurvePublicKey]:
    """An APNs provider key as Apple hands it out (a PKCS #8 P-256 key, the `.p8` file): its path
    and public key."""
    key = ec.generate_private_key(ec.SECP256R1())
    path = os.path.join(directory, "AuthKey.p8")
    with open(path, "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    return path, key.public_key()


class APNsService(TunnelPeer):
    HOSTS = ["api.push.apple.com", "api.development.push.apple.com"]
    ALPN = ["h2"]

    def __init__(self, *, public_key: ec.EllipticCurvePublicKey, key_id: str, team_id: str, topic: str):
        self.public_key, self.key_id, self.team_id, self.topic = public_key, key_id, team_id, topic
        self.received: list[Received] = []
        self.tokens: set[str] = set()
        self.answers: dict[str, list[tuple[int, str]]] = {}
        self.lock = threading.Lock()

    def device(self) -> str:
        token = os.urandom(32).hex()  # what an iPhone's registration gives: 32 bytes, in hex
        self.tokens.add(token)
        return token

    def answer(self, token: str, *answers: tuple[int, str]) -> None:
        self.answers.setdefault(token, []).extend(answers)

    def delivered(self, token: str) -> list[Received]:
        return [r for r in self.received if r.token == token and r.status == 200]

    def serve(self, host: str, tls: socket.socket) -> None:
        conn = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        )
        conn.initiate_connection()
        tls.sendall(conn.data_to_send())
        streams: dict[int, dict] = {}
        while True:
            data = tls.recv(65535)
            if not data:
                return
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    streams[event.stream_id] = {"headers": dict(event.headers), "body": b""}
                elif isinstance(event, h2.events.DataReceived):
                    streams[event.stream_id]["body"] += event.data
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    request = streams.pop(event.stream_id)
                    self._respond(conn, event.stream_id, request["headers"], request["body"])
                elif isinstance(event, h2.events.ConnectionTerminated):
                    tls.sendall(conn.data_to_send())
                    return
            tls.sendall(conn.data_to_send())

    def _respond(self, conn, stream_id: int, headers: dict, body: bytes) -> None:
        status, reason = self._decide(headers, body)
        response = [(":status", str(status)), ("apns-id", headers.get("apns-id", ""))]
        if status == 200:
            conn.send_headers(stream_id, response, end_stream=True)
            return
        error = {"reason": reason}
        if status == 410:
            error["timestamp"] = int(time.time() * 1000)
        data = json.dumps(error).encode()
        conn.send_headers(stream_id, [*response, ("content-type", "application/json")])
        conn.send_data(stream_id, data, end_stream=True)

    def _decide(self, headers: dict, body: bytes) -> tuple[int, str | None]:
        token = headers.get(":path", "").removeprefix("/3/device/")
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        with self.lock:
            if headers.get(":method") != "POST" or not headers.get(":path", "").startswith("/3/device/"):
                status, reason = 404, "BadPath"
            elif not self._authorized(headers.get("authorization", "")):
                status, reason = 403, "InvalidProviderToken"
            elif headers.get("apns-topic") != self.topic:
                status, reason = 400, "BadTopic"
            elif payload is None or "aps" not in payload:
                status, reason = 400, "PayloadEmpty"
            elif token not in self.tokens:
                status, reason = 400, "BadDeviceToken"
            elif self.answers.get(token):
                status, reason = self.answers[token].pop(0)
            else:
                status, reason = 200, None
            self.received.append(Received(token, headers, payload, status, reason))
        return status, reason

    def _authorized(self, authorization: str) -> bool:
        scheme, _, token = authorization.partition(" ")
        if scheme != "bearer":
            return False
        try:
            header = jwt.get_unverified_header(token)
            claims = jwt.decode(token, key=self.public_key, algorithms=["ES256"])
        except jwt.PyJWTError:
            return False
        # Apple refuses a provider token older than an hour (`ExpiredProviderToken`).
        return (
            header.get("kid") == self.key_id
            and claims["iss"] == self.team_id
            and claims["iat"] > time.time() - 3600
        )
