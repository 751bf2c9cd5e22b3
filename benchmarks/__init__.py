"""Reproductions of the papers' experiments and speed comparisons.

Each benchmark is a module ``benchmarks/<name>.py`` defining ``TITLE`` (str)
and ``run(quick: bool, n_jobs: int) -> list[Section]``.  The runner writes
``benchmarks/results/<name>.md``.  ``--quick`` shrinks replications so that a
smoke run takes seconds; published results files always come from full runs.
"""
