"""Every form of REDIS_URL the docs allow (docs/storage.md, "Which Redis") reaches a real redis-server with
every redis-py release our range admits, and a malformed one is refused in one line before anything starts.

redis-py 8.2 refuses ``unix:/path`` (no ``//``), the form ``urlunsplit`` makes of ``unix:///path``: URLs are
passed on as they were written, only our own ``cluster`` option taken out."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from storage import ChatRef
from storage.connect import open_store
from storage.embedded import RedisServer
from storage.redis_url import InvalidRedisUrl, parse_redis_url
from tests.local.cli import clean_env, run_cli

CHAT = ChatRef("tg", "-100")
PASSWORD = "p@ss:w/rd#1?"  # every character that must be percent-encoded in a URL's userinfo
ENCODED = quote(PASSWORD, safe="")


async def saves_and_loads(url: str, tmp_path: Path) -> None:
    store, close = await open_store(url, tmp_path / "unused")
    try:
        await store.ping()
        assert (await store.save(CHAT, 0, "a game", ttl=60) or 0) > 0
        assert (await store.load(CHAT)).state == "a game"
    finally:
        await close()


def keys_in_db(server: RedisServer, db: int, **options: object) -> list[bytes]:
    with server.client(db=db, **options) as probe:
        return list(probe.keys("*"))


# --- the forms, against a real server --------------------------------------------------------------------


@pytest.fixture
def unix_server(redis_server_factory: Callable[..., RedisServer]) -> RedisServer:
    return redis_server_factory("unix")


@pytest.fixture
def tcp_server(redis_server_factory: Callable[..., RedisServer], free_port: int) -> RedisServer:
    return redis_server_factory("tcp", port=free_port)


@pytest.fixture
def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.redis_server
async def test_a_unix_url_with_a_path(unix_server: RedisServer, tmp_path: Path) -> None:
    url = f"unix://{unix_server.socket}"
    assert url.startswith("unix:///")
    await saves_and_loads(url, tmp_path)
    assert keys_in_db(unix_server, 0)


@pytest.mark.redis_server
async def test_a_unix_url_with_query_options_keeps_them(unix_server: RedisServer, tmp_path: Path) -> None:
    await saves_and_loads(f"unix://{unix_server.socket}?db=3&socket_timeout=5", tmp_path)
    assert keys_in_db(unix_server, 3) and not keys_in_db(unix_server, 0)


@pytest.mark.redis_server
async def test_a_unix_url_with_a_password(
    redis_server_factory: Callable[..., RedisServer], tmp_path: Path
) -> None:
    server = redis_server_factory("locked", password=PASSWORD)
    await saves_and_loads(f"unix://:{ENCODED}@{server.socket}?db=1", tmp_path)
    assert keys_in_db(server, 1)


@pytest.mark.redis_server
async def test_a_redis_url_with_host_port_and_database(tcp_server: RedisServer, tmp_path: Path) -> None:
    await saves_and_loads(f"redis://127.0.0.1:{tcp_server.port}/2", tmp_path)
    assert keys_in_db(tcp_server, 2) and not keys_in_db(tcp_server, 0)


@pytest.mark.redis_server
async def test_a_redis_url_with_a_user_and_password(
    redis_server_factory: Callable[..., RedisServer], free_port: int, tmp_path: Path
) -> None:
    server = redis_server_factory("acl", port=free_port, password=PASSWORD)
    await saves_and_loads(f"redis://default:{ENCODED}@127.0.0.1:{free_port}/0", tmp_path)
    assert keys_in_db(server, 0)


@pytest.mark.redis_server
async def test_a_redis_url_with_only_a_password(
    redis_server_factory: Callable[..., RedisServer], free_port: int, tmp_path: Path
) -> None:
    server = redis_server_factory("pw", port=free_port, password=PASSWORD)
    await saves_and_loads(f"redis://:{ENCODED}@127.0.0.1:{free_port}", tmp_path)
    assert keys_in_db(server, 0)


class TlsInFront:
    """A TLS endpoint on loopback that hands each connection to a real redis-server's unix socket, as a
    managed Redis's TLS port does (the wheel's redis-server is built without TLS)."""

    def __init__(self, backend: Path, context: ssl.SSLContext) -> None:
        self.backend, self.context = backend, context
        self.server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> TlsInFront:
        self.server = await asyncio.start_server(self.connect, "127.0.0.1", 0, ssl=self.context)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    async def connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        back_reader, back_writer = await asyncio.open_unix_connection(str(self.backend))

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, ssl.SSLError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, back_writer), pipe(back_reader, writer))


@pytest.fixture
def certificates(tmp_path: Path) -> Iterator[tuple[ssl.SSLContext, Path]]:
    trustme = pytest.importorskip("trustme", reason="pip install trustme (in the test extra)")
    authority = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(context)
    ca_file = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    yield context, ca_file


@pytest.fixture
async def tls_redis(
    unix_server: RedisServer, certificates: tuple[ssl.SSLContext, Path]
) -> AsyncIterator[tuple[int, Path]]:
    context, ca_file = certificates
    assert unix_server.socket is not None
    async with TlsInFront(unix_server.socket, context) as front:
        yield front.port, ca_file


@pytest.mark.redis_server
async def test_a_rediss_url_with_certificate_options(tls_redis: tuple[int, Path], tmp_path: Path) -> None:
    port, ca_file = tls_redis
    await saves_and_loads(
        f"rediss://localhost:{port}/0?ssl_cert_reqs=required&ssl_ca_certs={ca_file}", tmp_path
    )


@pytest.mark.redis_server
async def test_a_rediss_url_refuses_a_server_it_cannot_verify(
    tls_redis: tuple[int, Path], tmp_path: Path
) -> None:
    from storage.errors import StoreUnavailable

    port, _ = tls_redis
    store, close = await open_store(f"rediss://localhost:{port}/0?ssl_cert_reqs=required", tmp_path)
    try:
        with pytest.raises(StoreUnavailable):
            await store.ping()
    finally:
        await close()


# --- what is passed on, and what is refused ---------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "unix:///run/redis/redis.sock",
        "unix:///run/redis.sock?db=2&socket_timeout=3",
        f"unix://:{ENCODED}@/run/redis.sock?db=1",
        "redis://localhost",
        "redis://redis:6379/0",
        f"redis://user:{ENCODED}@10.0.0.5:6380/4",
        "rediss://example.com:6380?ssl_cert_reqs=required&ssl_ca_certs=/etc/ssl/ca.pem",
        "REDIS://Example.com",
    ],
)
def test_a_url_is_passed_on_exactly_as_written(url: str) -> None:
    parsed = parse_redis_url(url)
    assert (parsed.url, parsed.cluster) == (url, False)


@pytest.mark.parametrize(
    ("url", "passed_on"),
    [
        ("redis://node:7000?cluster=yes", "redis://node:7000"),
        ("rediss://node:7000/0?ssl_cert_reqs=none&cluster=true", "rediss://node:7000/0?ssl_cert_reqs=none"),
        ("redis://node:7000?cluster=1&db=0", "redis://node:7000?db=0"),
    ],
)
def test_the_cluster_option_is_ours_and_taken_out(url: str, passed_on: str) -> None:
    parsed = parse_redis_url(url)
    assert (parsed.url, parsed.cluster) == (passed_on, True)


def test_cluster_off_is_not_a_cluster() -> None:
    assert parse_redis_url("redis://node:7000?cluster=no").cluster is False


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("localhost:6379", "must start with redis://, rediss:// or unix://"),
        ("http://localhost:6379", "must start with redis://, rediss:// or unix://"),
        ("unix:/run/redis.sock", "must start with redis://, rediss:// or unix://"),
        ("unix://", "needs the socket's path"),
        ("unix://run/redis.sock", "needs the socket's path"),
        ("redis://localhost:port", "port"),
        ("redis://localhost:99999", "port"),
        ("redis://localhost/zero", "database"),
        ("redis://localhost?db=zero", "db"),
        ("unix:///run/redis.sock?socket_timeout=soon", "socket_timeout"),
        ("rediss://host?cluster=maybe", "cluster"),
        ("redis://host\n:6379", "spaces or control characters"),
    ],
)
def test_a_malformed_url_is_refused_with_what_is_wrong(url: str, says: str) -> None:
    with pytest.raises(InvalidRedisUrl) as refused:
        parse_redis_url(url)
    message = str(refused.value)
    assert says in message and "\n" not in message


def test_a_refusal_never_shows_the_password() -> None:
    with pytest.raises(InvalidRedisUrl) as refused:
        parse_redis_url("redis://admin:hunter2@localhost:port")
    assert "hunter2" not in str(refused.value) and "***" in str(refused.value)


@pytest.mark.parametrize(
    "url",
    ["redis//localhost", "unix://", "redis://:hunter2@localhost:nope"],
)
def test_the_operator_gets_one_line_and_no_traceback(url: str, tmp_path: Path) -> None:
    done = run_cli(["run", "--check", "--offline"], tmp_path, clean_env(tmp_path / "data", REDIS_URL=url))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("REDIS_URL "), done.stderr
    assert "Traceback" not in done.stderr and "hunter2" not in done.stderr
