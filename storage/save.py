"""A `SaveRequest` as the SAVE script's KEYS and ARGV, each given by its name in `scripts.SAVE_ARGUMENTS`.

Nothing here counts positions: the table orders the lists, and the script reads the same table's indexes, so
adding or moving an argument is one edit to the table (tests/storage/test_scripts_contract.py checks both
sides keep to it)."""

from __future__ import annotations

from typing import Any

from storage import keys as k
from storage.chats import ChatRef
from storage.models import PlayerOutcome, SaveRequest
from storage.scripts import SAVE_ARGUMENTS

ARCHIVE_TTL = 30 * 24 * 3600
REQUEST_TTL = 120  # how long a save's request id can be asked about: far beyond any client timeout


def save_keys(chat: ChatRef, request: SaveRequest, *, single: bool) -> list[str]:
    """The script's KEYS; the global ones (timers, archive, running games: other slots) only on a `single`
    Redis, as a cluster writes them in a second step (`RedisGameStore._cluster_globals`)."""
    outcome = request.outcome
    season = outcome.season if outcome else 1
    game_id = outcome.game_id if outcome else "-"
    fixed = {
        "version": k.version_key(chat),
        "state": k.state_key(chat),
        "messages": k.messages_key(chat),
        "meta": k.meta_key(chat),
        "lb_durak": k.leaderboard_key(chat, "durak", season),
        "lb_games": k.leaderboard_key(chat, "games", season),
        "lb_points": k.leaderboard_key(chat, "points", season),
        "lb_rank": k.leaderboard_key(chat, "rank", season),
        "outcome_marker": k.outcome_marker_key(chat, game_id),
        "request": k.request_key(chat, request.request_id or "-"),
        "lb_rating": k.leaderboard_key(chat, "rating", season),
        "ratings": k.ratings_key(chat),
    }
    players = [
        {
            "hash": k.player_key(chat, p.user_id, season),
            "trend": k.trend_key(chat, p.user_id, season),
            "versus": k.versus_key(chat, p.user_id, season),
        }
        for p in (outcome.players if outcome else [])
    ]
    global_keys = {
        "timers": k.timers_key(chat.platform),
        "archive": k.archive_key(game_id),
        "running": k.running_key(chat.platform),
    }
    return SAVE_ARGUMENTS.keys_for(fixed, players, global_keys if single else None)


def save_args(chat: ChatRef, request: SaveRequest, *, single: bool, running_until: float | None) -> list[Any]:
    """The script's ARGV. `running_until`: the running-games index's score for the chat (0: unlist it,
    None: leave the index), see `running_until`."""
    outcome, durak = request.outcome, request.last_durak
    fixed = {
        "expected_version": request.expected_version,
        "state": request.state or "",
        "store_state": "0" if request.state is None else "1",
        "ttl": request.ttl,
        "deadline": "" if request.deadline is None else repr(float(request.deadline)),
        "chat": str(chat),
        "last_durak_mode": "set" if isinstance(durak, str) else durak.value,
        "last_durak": durak if isinstance(durak, str) else "",
        "global": "1" if single else "0",
        "archive": outcome.archive_json if outcome else "",
        "archive_ttl": ARCHIVE_TTL,
        "players": len(outcome.players) if outcome else -1,
        "request_id": request.request_id or "",
        "state_must_exist": "1" if request.state_must_exist else "0",
        "request_ttl": REQUEST_TTL,
        "season": outcome.season if outcome else 1,
        "trend_length": k.TREND_LENGTH,
    }
    players = [player_args(p) for p in (outcome.players if outcome else [])]
    running = "" if running_until is None else repr(running_until)
    return SAVE_ARGUMENTS.args_for(fixed, players, {"running": running})


def player_args(player: PlayerOutcome) -> dict[str, Any]:
    """One player's part of a finished game's save: flags as 0/1, and mu, sigma and the ordinal (mu - 3
    sigma, the score of the `rating` board and the trend), or three "" for a player the game does not rate."""
    mu, sigma, ordinal = ("", "", "")
    if player.rating is not None:
        mu_value, sigma_value = player.rating
        mu, sigma, ordinal = repr(mu_value), repr(sigma_value), f"{mu_value - 3 * sigma_value:.2f}"
    return {
        "user_id": player.user_id,
        "name": player.name,
        "durak": int(player.durak),
        "first_out": int(player.first_out),
        "draw": int(player.draw),
        "points": int(player.points),
        "mu": mu,
        "sigma": sigma,
        "ordinal": ordinal,
        "ai_finished": int(player.ai_finished),
    }


def running_until(request: SaveRequest, now: float) -> float | None:
    """The chat's score in the running-games index after this save: until when its game would run
    untouched (`now` + ttl), 0.0 to unlist it, None to leave the index alone."""
    if request.running is None:
        return None
    return now + request.ttl if request.running else 0.0
