"""Helpers shared by the browser tests."""
