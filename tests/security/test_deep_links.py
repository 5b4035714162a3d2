"""F11 (issue 17): ``?dataset=…`` was dropped at login, so a shared link silently opened another
dataset's board.

The link's query parameters (dataset, thresholds ``t_<model>``, ``present``) survive the login
form; an unknown dataset id is said, never silently replaced.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from board.access import auth
from board.services import ensure_demo
from board.store import Store
from evalcore.data import ColumnMapping, read_table, validate
from tests.app.conftest import ADMIN, ADMIN_PASSWORD, app  # noqa: F401 - the AppTest fixture


@pytest.fixture
def second_dataset(tmp_path):
    rng = np.random.default_rng(11)
    x = rng.normal(size=300)
    f = pd.DataFrame(
        {"y": (rng.uniform(size=300) < 1 / (1 + np.exp(-2 * x))).astype(int), "p": np.round(1 / (1 + np.exp(-x)), 4)}
    )
    raw = f.to_csv(index=False).encode()
    mapping = {"label": "y", "scores": {"linked": "p"}, "score_kinds": {"linked": "probability"}}
    preds = validate(read_table(raw, "linked.csv"), ColumnMapping.from_dict(mapping))
    with Store(data_dir=tmp_path / "data") as s:
        demo_id = ensure_demo(s).id
        s.create_user(ADMIN, auth.hash_password(ADMIN_PASSWORD), "admin")
        rec = s.save_dataset(
            name="the linked one", filename="linked.csv", raw=raw, mapping=mapping, report=preds.summary(), n_rows=preds.n_rows
        )
    assert rec.id != demo_id
    return rec.id


def _login(at):
    at.text_input(key="login_username").input(ADMIN)
    at.text_input(key="login_password").input(ADMIN_PASSWORD)
    at.button[0].click().run()  # the form's submit button
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_linked_dataset_and_thresholds_survive_the_login(app, second_dataset):  # noqa: F811
    at = app(None, user=None)
    at.query_params["dataset"] = str(second_dataset)
    at.query_params["t_linked"] = "0.3"
    at.run()
    assert [t.value for t in at.title] == ["Log in"]
    _login(at)
    assert at.session_state["dataset"] == second_dataset
    assert at.session_state["committed_threshold_linked"] == 0.3
    assert any("the linked one" in m.value for m in at.html)  # the board of the linked dataset (its meta line)


def test_an_unknown_dataset_id_is_said_not_silently_replaced(app, second_dataset):  # noqa: F811
    at = app(None, user=None)
    at.query_params["dataset"] = "999"
    at.run()
    _login(at)
    warnings = [w.value for w in at.warning]
    assert any("Dataset #999 does not exist or was removed; showing" in w for w in warnings), warnings
