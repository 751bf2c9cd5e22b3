"""Exact checks of the subset designs (``subset/_design.py``)."""
