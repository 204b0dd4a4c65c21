"""Local fakes of the chat platforms' HTTP APIs, so tests exercise the real client libraries offline."""
