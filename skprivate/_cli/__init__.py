"""Command-line interface: ``python -m skprivate <command>``."""


class CLIError(Exception):
    """An error reported to the user as one line, with a non-zero exit code."""
