"""The web front end: the table and your hand on one page, for the Telegram Mini App and for play in the
browser (`durak-bot play --web`). One more adapter over the same `GameService`; see docs/webapp.md."""
