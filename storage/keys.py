"""Redis key names, in one place so the layout can be read (and changed) at a glance.

Every per-chat key carries the chat in braces, `durak:{tg:-100123}:state`: Redis Cluster hashes only the
part inside the braces, so all of one chat's keys live in one slot and a Lua script may touch them together.
Three keys are global (another slot): the timer index `durak:timers:<platform>`, the index of running games
`durak:running:<platform>` and the archive `durak:archive:<id>`.
"""

from __future__ import annotations

from storage.chats import ChatRef

PREFIX = "durak"


def timers_key(platform: str) -> str:
    """One deadline index per platform, so a process serving only Telegram never claims a Discord timer."""
    return f"{PREFIX}:timers:{platform}"


def running_key(platform: str) -> str:
    """The chats of one platform with a game running, scored by when the game expires untouched: a process
    starting up re-renders those whose screens were not delivered (bot/game/catch_up.py). Kept by the save
    script."""
    return f"{PREFIX}:running:{platform}"


LEADERBOARDS = ("durak", "games", "points")


def chat_key(chat: ChatRef, name: str) -> str:
    """A per-chat key: `durak:{tg:-100123}:<name>`."""
    return f"{PREFIX}:{{{chat}}}:{name}"


def version_key(chat: ChatRef) -> str:
    """The chat's version counter. It has no TTL, so a version is never reused after a lobby expires."""
    return chat_key(chat, "version")


def state_key(chat: ChatRef) -> str:
    """The lobby or running game, as the service's JSON; expires (TTL set by each save)."""
    return chat_key(chat, "state")


def messages_key(chat: ChatRef) -> str:
    """Hash of message ids the adapters edit ("table", "hand:<user>"); expires with the state."""
    return chat_key(chat, "messages")


def meta_key(chat: ChatRef) -> str:
    """Hash of chat settings: words, lang, last_durak, `season` (absent: 1), and `timer` (the version whose
    deadline is armed)."""
    return chat_key(chat, "chat")


def season_key(chat: ChatRef, name: str, season: int = 1) -> str:
    """A key of one season of a chat's stats. Season 1 keeps the names stats had before seasons existed
    (`durak:{tg:-100123}:player:42`); later seasons are prefixed (`durak:{tg:-100123}:s2:player:42`)."""
    return chat_key(chat, name if season == 1 else f"s{season}:{name}")


def player_key(chat: ChatRef, user_id: str, season: int = 1) -> str:
    """Hash of one player's totals in one chat and season: games, durak, first_out, draws, points, name,
    rank, streak, and once rated mu, sigma, rated (games rated); ai_finished (games whose seat the AI played
    to its end for them, rules.md §9.6) once there is one."""
    return season_key(chat, f"player:{user_id}", season)


def leaderboard_key(chat: ChatRef, board: str, season: int = 1) -> str:
    """Sorted set of user ids by one total (durak, games, points, rating: the ordinal), or `rank`
    (lexicographic, see stats)."""
    return season_key(chat, f"lb:{board}", season)


def trend_key(chat: ChatRef, user_id: str, season: int = 1) -> str:
    """List of one player's ordinal after each of their last `TREND_LENGTH` rated games (oldest first)."""
    return season_key(chat, f"trend:{user_id}", season)


def versus_key(chat: ChatRef, user_id: str, season: int = 1) -> str:
    """Hash of one player's head-to-head durak counts: `w:<other>` games in which the other was the durak
    and this player was not, `l:<other>` the other way round."""
    return season_key(chat, f"vs:{user_id}", season)


def ratings_key(chat: ChatRef) -> str:
    """Hash user -> "mu sigma" of the current season: read with a lobby (`LOAD`), so a game starts with its
    people's ratings without another round trip. A new season empties it."""
    return chat_key(chat, "ratings")


TREND_LENGTH = 20


def outcome_marker_key(chat: ChatRef, game_id: str) -> str:
    """Set once a game's stats are counted, so a repeated outcome is never counted twice."""
    return chat_key(chat, f"outcome:{game_id}")


def quarantine_key(chat: ChatRef, version: int) -> str:
    """A state the service could not decode, set aside at its version (kept a week, for debugging)."""
    return chat_key(chat, f"quarantine:{version}")


def request_key(chat: ChatRef, request_id: str) -> str:
    """The version a save with this request id made ("void": the caller gave up on it); kept two minutes."""
    return chat_key(chat, f"request:{request_id}")


def pages_key(chat: ChatRef) -> str:
    """Hash of the web pages open on the chat (`storage.presence`): field "<user id>:<socket id>",
    value the unix time it lapses unless refreshed."""
    return chat_key(chat, "pages")


LIVE_CHANNEL_PREFIX = f"{PREFIX}:live:"  # the save script spells it too (storage/scripts.py, SAVE)


def live_channel(chat: ChatRef) -> str:
    """The pub/sub channel of one chat: every saved change is published on it as "<chat>|<version>" (by the
    save script, so no extra round trip), for the web pages open on the chat in any process."""
    return f"{LIVE_CHANNEL_PREFIX}{chat}"


def archive_key(game_id: str) -> str:
    return f"{PREFIX}:archive:{game_id}"


def analysis_key(game_id: str) -> str:
    """A finished game's analysis, beside its archive and gone with it (`GameStore.save_analysis`)."""
    return f"{PREFIX}:analysis:{game_id}"


def timer_member(chat: ChatRef, version: int) -> str:
    """A member of `durak:timers:<platform>`: "tg:-100123|7" (chat ids never contain "|")."""
    return f"{chat}|{version}"


def parse_timer_member(member: str) -> tuple[ChatRef, int]:
    chat, _, version = member.rpartition("|")
    return ChatRef.parse(chat), int(version)


def pace_key(platform: str, scope: str) -> str:
    """A key of one bot token's shared flood pacing (adapters/telegram/shared_pacing.py): "all" (the token's
    bucket, a hash: tokens, stamp), "all:sent" (the token's recent sends, a sorted set by time), and per
    Telegram chat "chat:<id>" (its bucket, and `paused` after a 429) and "chat:<id>:sent". All of one
    token's pacing shares one slot (`{pace:tg}`), so one script can take from the token and the chat at once.
    They expire within minutes of the last send."""
    return f"{PREFIX}:{{pace:{platform}}}:{scope}"
