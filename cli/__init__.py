"""The `durak-bot` command: the composition root, above the adapters, that wires a store, the service, the
AI pool and the platforms together (`cli.main`)."""
