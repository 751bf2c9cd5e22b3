import numpy as np

from skprivate._cli.demo import DemoContext
from skprivate.datasets import load_adult, load_life_expectancy
from skprivate.subset import _demo


def test_demo_section_reports_private_and_clean_answers():
    section = _demo.run(DemoContext(load_adult(), load_life_expectancy()))
    assert section.family == "subset"
    assert len(section.rows) == 6
    l1 = [float(r.error.split()[1]) for r in section.rows[:4]]
    # n = 32,561 respondents: the L1 error of every estimator is small.
    assert np.max(l1) < 0.05
    assert "0.156" in section.rows[4].private
