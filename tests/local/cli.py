"""Running `durak-bot` as a separate process, the way a person runs it, with a bounded wait on every read."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

ENTRY = [sys.executable, "-m", "cli.main"]  # the same main() the durak-bot console script calls
REPO = Path(__file__).resolve().parents[2]


def clean_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """No tokens or Redis URL from the developer's environment; terminal games at full speed. The
    interpreter's own scripts (``durak-bot``) come first on PATH, as in an activated virtual environment,
    so a suite run as ``.venv/bin/python -m pytest`` runs the commands it installed."""
    env = {k: v for k, v in os.environ.items() if k not in {"TELEGRAM_TOKEN", "DISCORD_TOKEN", "REDIS_URL"}}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update({"DATA_DIR": str(data_dir), "AI_DELAY": "0", "PYTHONPATH": str(REPO), "NO_COLOR": "1"} | extra)
    return env


def run_cli(
    args: list[str], cwd: Path, env: dict[str, str], timeout: float = 30
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENTRY, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


class Conversation:
    """A `durak-bot play` process fed line by line; every line it prints is kept in `transcript`."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [*ENTRY, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.transcript: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.lines.put(raw.decode("utf-8", errors="replace").rstrip("\n"))
        self.lines.put(None)

    def next_line(self, deadline: float) -> str | None:
        """The next printed line, or None when the process has closed its output."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("durak-bot printed nothing in time:\n" + "\n".join(self.transcript[-40:]))
        try:
            line = self.lines.get(timeout=left)
        except queue.Empty:
            raise TimeoutError(
                "durak-bot printed nothing in time:\n" + "\n".join(self.transcript[-40:])
            ) from None
        if line is not None:
            self.transcript.append(line)
        return line

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((text + "\n").encode())
        self.process.stdin.flush()

    def finish(self, timeout: float = 15) -> tuple[int, str]:
        """Close stdin, wait for the exit; (exit status, stderr)."""
        assert self.process.stdin is not None
        if not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        assert self.process.stderr is not None
        return self.process.returncode, self.process.stderr.read().decode(errors="replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
