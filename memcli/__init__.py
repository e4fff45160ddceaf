"""memcli keeps an AI agent's file-based memory healthy."""

__version__ = "0.1.0"
