"""Helpers shared by test modules (issue 34): a test module imports from here, from a conftest
fixture, or from nothing of tests/ at all, never from another test module
(`tests/test_architecture.py` checks it)."""
