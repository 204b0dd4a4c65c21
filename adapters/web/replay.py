"""The replay page's JSON as the route sends it: the finished game step by step (`bot.render.replay`, which
rebuilds it from the archive: the adapter holds no game), with the page's ref added, encoded once and cached.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict

from adapters.web.links import replay_ref
from bot.adapter import replay_state


def replay_json(record: str, lang: str, analysis: bool = False) -> bytes:
    """The replay as the bytes the route sends (UTF-8 JSON): built once, cached as they are. ArchiveError when
    the record does not replay. ``analysis``: whether this server can analyse the game (`replay_state`).

    Pure CPU work, so the route runs it on a worker thread; but a thread holds the GIL, which Python takes
    from it for the event loop only every 5 ms (`sys.getswitchinterval`), and the loop needs it back after
    each of its system calls, so a request would wait for the build several times 5 ms. Sleeping 0 s after
    every step hands the GIL over at once: the loop waits at most one step (a fraction of a millisecond)."""
    state = replay_state(record, lang, pause=lambda: time.sleep(0), analysis=analysis)
    state = {"ref": replay_ref(state.pop("chat_id"), state["game_id"]), **state}
    return json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode()


class ReplayCache:
    """Built replays by (game, language), the most recently used kept within ``budget`` bytes: the size of
    a replay grows with its game's length (~70 KiB for 180 actions), so a count would bound nothing. An
    archive never changes, so an entry is never stale (it outlives its archive's 30 days only in a process
    that ran that long and kept asking for it)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.size = 0
        self._entries: OrderedDict[tuple[str, str], bytes] = OrderedDict()

    def get(self, key: tuple[str, str]) -> bytes | None:
        body = self._entries.get(key)
        if body is not None:
            self._entries.move_to_end(key)
        return body

    def put(self, key: tuple[str, str], body: bytes) -> None:
        """Keep ``body``, dropping the least recently used until the rest fits; one larger than the whole
        budget is not kept."""
        old = self._entries.pop(key, None)
        self.size -= len(old) if old is not None else 0
        if len(body) > self.budget:
            return
        while self._entries and self.size + len(body) > self.budget:
            _, dropped = self._entries.popitem(last=False)
            self.size -= len(dropped)
        self._entries[key] = body
        self.size += len(body)
