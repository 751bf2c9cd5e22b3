"""Command-line interface: ``python -m skprivate <command>``."""
