"""Typed lines from stdin for asyncio, without blocking the event loop or the exit.

A daemon thread does plain `os.read`s on the file descriptor (no Python buffer lock), so Ctrl-C or the end of
the game never waits for a half-typed line; it works for terminals, pipes and files alike.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import threading
from typing import Protocol


class Lines(Protocol):
    """Where the terminal's typed lines come from (a `LineReader` on stdin, or a test's keyboard)."""

    async def next(self) -> str | None: ...


class LineReader:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.ended = False
        self.loop = asyncio.get_running_loop()
        self.thread = threading.Thread(target=self._read, name="stdin-lines", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while True:
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                chunk = b""
            pending += decoder.decode(chunk, final=not chunk)
            *lines, pending = pending.split("\n")
            for line in lines:
                self._put(line.rstrip("\r"))
            if not chunk:
                if pending:
                    self._put(pending)
                self._put(None)
                return

    def _put(self, line: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: we are leaving
            self.loop.call_soon_threadsafe(self.queue.put_nowait, line)

    async def next(self) -> str | None:
        """The next line, or None once input has ended (and every time after)."""
        if self.ended:
            return None
        line = await self.queue.get()
        self.ended = line is None
        return line
