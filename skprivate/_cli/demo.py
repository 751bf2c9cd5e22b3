"""``python -m skprivate demo``: the command runs the demo application."""

from skprivate._app.demo import run_demo

__all__ = ["run_demo"]
