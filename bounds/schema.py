"""The version of attnio's JSON output, shared by every command that writes JSON."""

JSON_SCHEMA_VERSION = 1
"""Bumped whenever a JSON field is renamed, removed or changes meaning."""
