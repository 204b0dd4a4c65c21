"""The application layer, platform-neutral: an input becomes a saved state plus what each audience sees.

Its top level is what adapters and decisions pass around: the service (`service`: the write side;
`queries`: the read side), inputs, effects, payloads and buttons, the session, a decision and its context,
the archive, i18n, and the adapters' contract (`adapter`). Rooms below it: `game/` (the pure decisions),
`commands/` (the table and its handlers), `render/` (state in, neutral messages out) and `runtime/` (timers,
the AI pool, limits, metrics, logs, config). The `durak-bot` command that wires them to the platforms is
`cli.main`, above the adapters.
"""
