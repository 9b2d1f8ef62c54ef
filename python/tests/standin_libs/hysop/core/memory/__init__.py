"""Stand-in package for the tests (see tests/standins.py)."""
