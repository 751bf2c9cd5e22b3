import numpy as np

from skprivate._app.demo import DemoContext
from skprivate._app.sections import subset
from skprivate.datasets import load_adult, load_life_expectancy


def test_demo_section_reports_private_and_clean_answers():
    section = subset.run(DemoContext(load_adult(), load_life_expectancy()))
    assert section.family == "subset"
    assert len(section.rows) == 9
    l1 = [float(r.error.split()[1]) for r in section.rows[:4]]
    # n = 32,561 respondents: the L1 error of every estimator is small.
    assert np.max(l1) < 0.05
    size = next(r for r in section.rows if r.task.startswith("size leakage"))
    assert size.private == "0.156"
