"""The embedded redis-server's unix socket lives in a directory only we can write, and a server already
answering there is reused only when that directory is ours: another local user must not be able to serve
the bot a Redis of their own (storage/embedded.py)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from storage.connect import open_store
from storage.embedded import RedisServer, find_redis_server, socket_path_for

pytestmark = pytest.mark.redis_server
Plant = Callable[[Path], None]


@pytest.fixture(autouse=True)
def needs_a_binary() -> None:
    if find_redis_server() is None:
        pytest.skip("no redis-server binary")


@pytest.fixture
def deep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A data directory whose ``redis.sock`` would pass the kernel's 107-byte limit for a socket path; the
    socket's directory outside tmp_path is removed afterwards."""
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    path = tmp_path / ("d" * 60) / ("e" * 60)
    assert len(str(path / "redis.sock")) > 107
    yield path
    outside = socket_path_for(path).parent
    if outside.name.startswith("durak-redis-") and not outside.is_symlink():
        shutil.rmtree(outside, ignore_errors=True)


def is_ours_and_private(directory: Path) -> bool:
    info = directory.lstat()
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == 0o700


@pytest.fixture
def plant(tmp_path: Path) -> Iterator[Plant]:
    """``plant(socket)``: another user's redis-server listening on ``socket``, holding the key ``planted``."""
    servers: list[subprocess.Popen[bytes]] = []

    def start(socket: Path) -> None:
        binary = find_redis_server()
        assert binary is not None
        folder = tmp_path / f"planted{len(servers)}"
        folder.mkdir()
        servers.append(subprocess.Popen(
            [binary, "--port", "0", "--unixsocket", str(socket), "--unixsocketperm", "777", "--dir",
             str(folder), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))  # fmt: skip
        for _ in range(500):
            try:
                redis.Redis(unix_socket_path=str(socket)).set("planted", "yes")
                return
            except (redis.ConnectionError, OSError):
                assert servers[-1].poll() is None, "the planted server exited"
                time.sleep(0.01)
        raise AssertionError("the planted server did not start")

    yield start
    for server in servers:
        server.kill()
        server.wait()


def test_a_data_dir_too_long_for_a_socket_path_gets_a_socket_in_a_directory_of_ours_only(deep: Path) -> None:
    server = RedisServer(deep)
    server.start()
    try:
        assert server.socket is not None and len(str(server.socket)) <= 107
        assert is_ours_and_private(server.socket.parent)
        assert server.answers()
    finally:
        server.stop()


def test_with_a_runtime_dir_the_socket_of_a_long_data_dir_goes_under_it(
    deep: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = Path(tempfile.mkdtemp(prefix="xdg-"))  # short, like /run/user/1000
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    server = RedisServer(deep)
    server.start()
    try:
        assert server.socket is not None and server.socket.parent.parent == runtime
        assert is_ours_and_private(server.socket.parent)
    finally:
        server.stop()
        shutil.rmtree(runtime)


def test_a_short_data_dir_keeps_its_socket_in_a_private_folder_of_its_own(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "data")
    server.start()
    try:
        assert server.socket is not None and server.socket.parent.parent == (tmp_path / "data").resolve()
        assert is_ours_and_private(server.socket.parent)
    finally:
        server.stop()


async def opens_its_own_server(data_dir: Path) -> bool:
    """Open the embedded store on ``data_dir``: True when it talks to a server of its own, not a planted one."""
    store, close = await open_store(None, data_dir)
    try:
        await store.ping()
        return await store.redis.get("planted") is None
    finally:
        await close()


def open_to_all(directory: Path) -> None:
    """``directory`` made writable by every local user (unless it already exists: the shared /tmp is)."""
    if not directory.exists():
        directory.mkdir()
        directory.chmod(0o777)


async def test_a_server_planted_in_a_directory_anyone_can_write_is_not_reused(
    deep: Path, plant: Plant
) -> None:
    socket = socket_path_for(deep)
    open_to_all(socket.parent)
    plant(socket)
    assert await opens_its_own_server(deep)


async def test_a_server_planted_in_a_directory_of_another_user_is_not_reused(
    deep: Path, plant: Plant, monkeypatch: pytest.MonkeyPatch
) -> None:
    socket = socket_path_for(deep)
    if not socket.parent.exists():
        socket.parent.mkdir(mode=0o700)
    plant(socket)
    real_lstat = os.lstat

    def owned_by_someone_else(path: str | os.PathLike[str], **options: object) -> os.stat_result:
        found = real_lstat(path, **options)  # type: ignore[arg-type]
        if Path(path) != socket.parent:
            return found
        fields = list(found)[:10]
        fields[stat.ST_UID] = found.st_uid + 1
        return os.stat_result(fields)

    monkeypatch.setattr(os, "lstat", owned_by_someone_else)
    assert await opens_its_own_server(deep)


async def test_a_server_behind_a_symlink_in_place_of_the_socket_directory_is_not_reused(
    deep: Path, tmp_path: Path, plant: Plant
) -> None:
    socket = socket_path_for(deep)
    if socket.parent == Path(socket.parent.anchor) / "tmp":
        pytest.skip("the socket's directory is the shared temp dir itself")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    socket.parent.symlink_to(elsewhere)
    try:
        plant(elsewhere / socket.name)
        assert await opens_its_own_server(deep)
    finally:
        socket.parent.unlink()


async def test_a_server_left_running_in_our_own_private_directory_is_reused(deep: Path) -> None:
    left = RedisServer(deep)
    left.start()  # e.g. by a bot killed on a system without PR_SET_PDEATHSIG
    try:
        left.client().set("planted", "by us")
        assert not await opens_its_own_server(deep)
        assert left.answers(), "not ours to stop"
    finally:
        left.stop()
