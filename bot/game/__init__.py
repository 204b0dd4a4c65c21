"""The game's decisions, pure: an input against a chat's stored session in, a `bot.decision.Decision` out.

The lobby and its seats, a press's dispatch (`presses`), moves and the AI seats' moves, the turn clock, what
each audience is shown after a change (`screens`, `last_actions`), the end of a game and its scores,
surrender, /hint, ratings, the private chat and web-app pauses of a person's hand, and catching up on
screens a crashed process never sent. Nothing here does I/O: `bot.service` loads, saves and retries.
"""
