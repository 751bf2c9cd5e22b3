"""The ldp demo section runs on the bundled data and reports sane numbers."""

import pytest

from skprivate._cli.demo import DemoContext
from skprivate.datasets import load_adult, load_life_expectancy
from skprivate.ldp import _demo


@pytest.mark.slow
def test_demo_section_compares_private_and_clean_answers():
    section = _demo.run(DemoContext(load_adult(), load_life_expectancy()))
    assert section.family == "ldp"
    rows = {row.task: row for row in section.rows}
    kernel = next(r for t, r in rows.items() if "deconvolution kernel" in t)
    logit = next(r for t, r in rows.items() if "logistic" in t)
    assert float(kernel.private) > float(logit.private)  # paper: -0.51 vs -0.53
    assert float(kernel.private) == pytest.approx(-0.51, abs=0.02)
    naive = next(r for t, r in rows.items() if "naive" in t)
    deconv = next(r for t, r in rows.items() if "(deconvolution KDE)" in t)
    assert float(deconv.private) < float(naive.private)
    assert all(r.privacy.startswith("eps=") for r in section.rows)
    assert "ldp_density_and_adult" in section.figures
