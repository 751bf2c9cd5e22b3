"""The demo application of skprivate, built on top of the privacy families.

``python -m skprivate demo`` runs :func:`skprivate._app.demo.run_demo`: it
loads the bundled datasets, runs one section per family (the modules in
:mod:`skprivate._app.sections`), prints a summary and writes an HTML report.

The dependency goes one way: this package imports the families; no family
(``skprivate.interval``, ``ldp``, ``subset``, ``negative_survey``,
``integral``) nor ``skprivate.utils`` imports this package.  A test scans the
imports to keep it so.
"""
