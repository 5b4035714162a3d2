"""AppTest: every page renders on the demo data without exception, and key interactions
change the displayed numbers to the values evalcore computes."""

import pytest

from board.services import demo
from board.words import fmt
from evalcore import ValueTable, price_curve, score_counts

PAGES = ["views/board.py", "views/threshold_value.py", "views/value_table.py", "views/upload.py", "views/datasets.py"]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_demo(app, page):
    at = app(page)
    assert not at.exception
    headings = [t.value for t in at.title] + [
        m.value for m in at.markdown if m.value.startswith("#") or "Decision board" in m.value
    ]
    assert headings, f"{page} shows no title"


def _demo_curve(model, table=None):
    f = demo.demo_frame()
    t = table or ValueTable.from_dict(demo.DEMO_VALUE_TABLE)
    return price_curve(score_counts(f.is_fraud.to_numpy(), f[demo.DEMO_MAPPING["scores"][model]].to_numpy()), t)


def _metric(at, startswith):
    return next(m for m in at.metric if m.label.startswith(startswith)).value


def test_threshold_slider_changes_ev(app):
    at = app("views/threshold_value.py")
    expected = _demo_curve("new").ev_at(0.5)
    assert _metric(at, "new: EV") == fmt.money(expected, "EUR", signed=True)
    at.slider(key="threshold_new").set_value(0.1).run()
    assert not at.exception
    expected = _demo_curve("new").ev_at(0.1)
    assert _metric(at, "new: EV") == fmt.money(expected, "EUR", signed=True)


def test_threshold_table_shows_an_undefined_bayes_threshold_as_a_dash(app):
    # raw scores have no Bayes t*: the operating table showed a blank NaN cell (pandas' str dtype keeps it missing)
    at = app("views/upload.py")
    csv = b"label,score\n1,4.5\n0,-2.0\n1,1.5\n0,0.5\n0,-3.5\n1,2.5\n"
    at.file_uploader(key="upload_file").set_value(("raw.csv", csv, "text/csv")).run()
    at.button(key="upload_save").click().run()
    at.switch_page("views/threshold_value.py").run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value.set_index("Measure")
    assert table.loc["Bayes threshold t*", "score"] == "—"
    assert not table.isna().any().any()
    assert any("bayes threshold is undefined (—)" in c.value for c in at.caption)


def test_threshold_heatmap_is_the_segment_curves_of_the_chosen_model(app):
    import base64
    import json

    import numpy as np

    from evalcore import segment_curves
    from evalcore.board import heatmap_grid

    at = app("views/threshold_value.py")
    at.selectbox(key="tv_seg_model").set_value("new").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["tv_log_x"]  # rare positives: the log axis, so the board's log grid
    f, t = demo.demo_frame(), ValueTable.from_dict(demo.DEMO_VALUE_TABLE)
    y, s = f.is_fraud.to_numpy(), f[demo.DEMO_MAPPING["scores"]["new"]].to_numpy()
    col = at.selectbox(key="tv_segment").value
    seg = segment_curves(
        y,
        s,
        f[col].astype(str).to_numpy(),
        t,
        column=col,
        score_kind="probability",
        grid=heatmap_grid(s, "probability", float(y.mean())),
        deployed=0.5,
    )

    def arr(v):  # plotly sends numpy arrays as typed arrays: {"dtype", "bdata" (base64), "shape"}
        if not isinstance(v, dict):
            return np.asarray(v, dtype=float)
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        return a.reshape([int(k) for k in str(v["shape"]).split(",")]) if "shape" in v else a

    fig = json.loads(next(c for c in at.get("plotly_chart") if c.proto.id.endswith("tv_heatmap")).proto.spec)
    heat, stars = fig["data"][0], fig["data"][1]
    np.testing.assert_allclose(arr(heat["x"]), seg.grid)
    np.testing.assert_allclose(arr(heat["z"]), seg.ev)
    ok = np.isfinite(seg.t_opt) & (seg.t_opt >= seg.grid.min()) & (seg.t_opt <= seg.grid.max())
    np.testing.assert_allclose(arr(stars["x"]), seg.t_opt[ok])


def test_value_table_edit_reprices_curve(app):
    at = app("views/value_table.py")
    # the data editor has no AppTest API: seed its pending edits through session state (notes §4.1)
    at.session_state["vt_editor_0"] = {"edited_rows": {2: {"amount": -60000.0}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    at.switch_page("views/threshold_value.py").run()
    table = ValueTable.from_dict({**demo.DEMO_VALUE_TABLE, "fn": -60000.0})
    expected = _demo_curve("new", table).ev_at(0.5)
    assert _metric(at, "new: EV") == fmt.money(expected, "EUR", signed=True)


def test_value_table_rejects_bad_confidence_on_server(app):
    at = app("views/value_table.py")
    at.session_state["vt_editor_0"] = {"edited_rows": {1: {"confidence": 1.7}}, "added_rows": [], "deleted_rows": []}
    at.run()
    from board.app.ui import md_text

    assert any("confidence" in e.value and md_text("(0, 1]") in e.value for e in at.error)


def test_value_table_warns_on_inverted_sign(app):
    at = app("views/value_table.py")
    at.session_state["vt_editor_0"] = {"edited_rows": {2: {"amount": 22000.0}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.error
    assert any("usually a cost" in w.value for w in at.warning)


def test_upload_small_csv_shows_summary(app):
    at = app("views/upload.py")
    csv = b"label,score\n1,0.9\n0,0.2\n1,0.7\n0,0.4\n0,0.1\n"
    at.file_uploader(key="upload_file").set_value(("tiny.csv", csv, "text/csv")).run()
    assert not at.exception
    assert any("Valid: 5 rows" in s.value for s in at.success), [s.value for s in at.success]


def test_upload_bad_csv_lists_problems(app):
    at = app("views/upload.py")
    csv = b"label,score\n1,0.9\n0,abc\n2,0.7\n"
    at.file_uploader(key="upload_file").set_value(("bad.csv", csv, "text/csv")).run()
    assert not at.exception
    assert at.error and "problems found" in at.error[0].value
    listed = at.dataframe[-1].value
    codes = " ".join(listed["Problem"])
    assert "score" in codes and "label" in codes  # both the text score and the 3-valued label are listed at once


def test_saved_upload_is_selected_everywhere_and_audited(app):
    import os

    from board.store import Store

    at = app("views/upload.py")
    csv = b"label,score\n1,0.9\n0,0.2\n1,0.7\n0,0.4\n0,0.1\n"
    at.file_uploader(key="upload_file").set_value(("tiny.csv", csv, "text/csv")).run()
    at.button(key="upload_save").click().run()
    assert not at.exception
    s = Store(data_dir=os.environ["EVALBOARD_DATA_DIR"])
    rec = next(r for r in s.list_datasets() if r.filename == "tiny.csv")
    assert at.session_state["dataset"] == rec.id
    entry = s.list_audit(limit=5, action="upload_dataset")[0]
    assert entry.detail["dataset_id"] == rec.id
