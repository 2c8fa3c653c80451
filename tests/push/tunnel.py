"""The network boundary of the APNs and FCM tests: a server on loopback that stands for the service's
hosts, with a certificate for them issued by a certificate authority the test makes and the client is
told to trust. Behind the TLS, a subclass speaks the service's own HTTP API (tests/push/
apns_service.py, tests/push/fcm_service.py).

Neither client library lets its service's address be set (aioapns connects to
api[.development].push.apple.com:443, firebase-admin posts to https://fcm.googleapis.com), so the
connection is turned to loopback where each lets it be, docs/notifications.md "Tested against":

- `proxy`: an HTTP proxy that answers `CONNECT <host>:443` itself and terminates the TLS inside the
  tunnel. firebase-admin's requests session goes through it when `HTTPS_PROXY` names it.
- `direct`: TLS at once. `LoopbackEventLoopPolicy` gives asyncio loops whose `create_connection` to
  one of the hosts connects here instead, as a hosts-file entry would (aioapns has a proxy option,
  but its tunnel calls `send` on asyncio's transport socket, which Python 3.11 removed).

Either way the client does everything it does in production (the host name, SNI, the certificate
check, HTTP/2 or HTTP/1.1 framing, the request) against this peer.
"""

import asyncio
import datetime
import http.server
import os
import socketserver
import ssl
import tempfile
import threading

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def _pem_key(key) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def certificate_authority(directory: str, hosts: list[str]) -> tuple[str, str, str]:
    """A CA and a server certificate it signs for `hosts`: (ca file, cert file, key file)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "baohuang tests CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), True
        )  # key_cert_sign, crl_sign
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0])]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host) for host in hosts]), False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = [os.path.join(directory, name) for name in ("ca.pem", "cert.pem", "key.pem")]
    for path, data in zip(
        paths,
        [
            ca.public_bytes(serialization.Encoding.PEM),
            cert.public_bytes(serialization.Encoding.PEM),
            _pem_key(key),
        ],
        strict=True,
    ):
        with open(path, "wb") as f:
            f.write(data)
    return paths[0], paths[1], paths[2]


class TunnelPeer:
    """Start with `with Peer() as peer:`; `peer.proxy` is (host, port) of the proxy, `peer.ca_file`
    the CA the client must trust. A subclass lists its `HOSTS` and serves a tunnel's decrypted socket
    in `serve(host, tls_socket)`."""

    HOSTS: list[str] = []
    ALPN: list[str] = []

    def __enter__(self):
        self._dir = tempfile.TemporaryDirectory()
        self.ca_file, cert_file, key_file = certificate_authority(self._dir.name, self.HOSTS)
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert_file, key_file)
        if self.ALPN:
            self.context.set_alpn_protocols(self.ALPN)
        self.tunnels: list[str] = []  # the hosts asked for (SNI), in order
        self.context.sni_callback = lambda _socket, name, _context: self.tunnels.append(name)
        peer = self

        class Proxy(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # aioapns waits for "HTTP/1.1 200 Connect…"

            def log_message(self, *args):
                pass

            def do_CONNECT(self):
                host, _, port = self.path.rpartition(":")
                if host not in peer.HOSTS or port != "443":
                    self.send_error(403, "Not a tunnel this peer serves")
                    return
                self.send_response(200, "Connection established")
                self.end_headers()
                self.close_connection = True
                try:
                    tls = peer.context.wrap_socket(self.connection, server_side=True)
                except (ssl.SSLError, OSError):
                    return  # the client refused the certificate: nothing to serve
                try:
                    peer.serve(host, tls)
                except (ssl.SSLError, OSError):
                    pass  # the client hung up
                finally:
                    tls.close()

        class Direct(socketserver.BaseRequestHandler):
            def handle(self):
                try:
                    tls = peer.context.wrap_socket(self.request, server_side=True)
                except (ssl.SSLError, OSError):
                    return
                try:
                    peer.serve(None, tls)
                except (ssl.SSLError, OSError):
                    pass
                finally:
                    tls.close()

        self.servers = [
            http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy),
            socketserver.ThreadingTCPServer(("127.0.0.1", 0), Direct),
        ]
        for server in self.servers:
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
        self.proxy, self.direct = (server.server_address for server in self.servers)
        return self

    def __exit__(self, *exc) -> None:
        for server in self.servers:
            server.shutdown()
            server.server_close()
        self._dir.cleanup()

    @property
    def proxy_url(self) -> str:
        return f"http://{self.proxy[0]}:{self.proxy[1]}"

    def serve(self, host: str | None, tls: ssl.SSLSocket) -> None:
        """Serve one connection; `host` is the tunnel's (None on the direct way)."""
        raise NotImplementedError


class LoopbackEventLoopPolicy(asyncio.DefaultEventLoopPolicy):
    """asyncio's loops, but a connection to one of `peer`'s hosts on port 443 reaches its direct
    server (the TLS handshake still names and checks the real host)."""

    def __init__(self, peer: TunnelPeer) -> None:
        super().__init__()
        self.peer = peer

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        peer = self.peer

        class Loop(asyncio.SelectorEventLoop):
            async def create_connection(self, protocol_factory, host=None, port=None, **kwargs):
                if host in peer.HOSTS and port == 443:
                    kwargs.setdefault("server_hostname", host)
                    host, port = peer.direct
                return await super().create_connection(protocol_factory, host, port, **kwargs)

        return Loop()
