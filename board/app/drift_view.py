"""Streamlit helpers of the Drift page and the red-light banner shown on every page (SPEC §3.6).

The drift computation is cached by (dataset id, file SHA-256, settings JSON) -- never by
hashing arrays -- so the banner costs one small settings query per rerun once the cache is
warm. The numbers all come from :mod:`evalcore.drift`; :func:`compute` only decides which
model's probabilities the calibration light judges (every probability model; the light is
the worst of them).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import numpy as np
import pandas as pd
import streamlit as st

from board.access import governance
from board.app import state, ui
from board.app.ui import md_text
from board.charts.drift import FAMILY_TITLES
from board.services import drift_settings
from board.services.drift_settings import load_config
from board.store import StoreError
from board.words import fmt
from board.words.drift_reasons import light_reason
from board.words.glossary import term
from board.words.i18n import N_, t, tn
from evalcore import InputError
from evalcore.aggregate import Aggregate, board_drift_of
from evalcore.drift import DriftConfig, DriftReport, Light


def _L() -> str:
    """This tab's language."""
    return state.current_locale()


PAGE = "views/drift.py"
FAMILIES = ("feature", "label", "calibration")
BADGE = {
    "green": ("green", N_("no drift")),
    "yellow": ("orange", N_("watch")),
    "red": ("red", N_("drift")),
    "grey": ("gray", N_("cannot judge")),
}
NEEDS_TIME = (
    "Drift needs a time column: it compares time windows with a reference window. This dataset has "
    "none mapped. On the **Upload** page, upload the file again and choose its date or timestamp "
    "column as **Time column** (one value per row, e.g. `2026-10-05 14:03`)."
)
BANNER = "**Drift: {what}.** The headline numbers rest on an evaluation set that may no longer represent production."

# the settings form (widget keys) and the session keys it uses
K_START, K_REF_DAYS, K_WINDOW, K_KS, K_RED, K_PSI_Y, K_PSI_R, K_FEATURES = (
    "drift_ref_start",
    "drift_ref_days",
    "drift_window_days",
    "drift_ks",
    "drift_consecutive",
    "drift_psi_yellow",
    "drift_psi_red",
    "drift_features",
)
FORM_KEYS = (K_START, K_REF_DAYS, K_WINDOW, K_KS, K_RED, K_PSI_Y, K_PSI_R, K_FEATURES)
_SEEDED_FOR = "drift_form_for"
MESSAGE = "drift_form_message"  # (kind, text) shown once after a save or reset


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class DriftView:
    """What the Drift page and the banner show.

    Attributes
    ----------
    lights : dict of str to Light
        "feature", "label", "calibration". Feature and label are ``report``'s; calibration
        is the worst of ``calibration`` (by colour, then by the latest O/E ratio's distance
        from 1; its reason prefixed by the model when there are several).
    report : DriftReport or None
        ``drift_lights`` on the first probability model (None when ``error``).
    calibration : dict of str to CalibrationDrift
        Per probability model.
    skipped_models : tuple of str
        Models without probabilities (raw scores, decisions): no calibration drift.
    config : DriftConfig
    error : InputError or None
        Why drift could not be computed (e.g. saved features no longer in the data).
    """

    lights: dict
    report: DriftReport | None
    calibration: dict
    skipped_models: tuple
    config: DriftConfig
    error: InputError | None = None

    @property
    def any_red(self) -> bool:
        return any(light.color == "red" for light in self.lights.values())

    @property
    def red_families(self) -> list[str]:
        return [f for f in FAMILIES if f in self.lights and self.lights[f].color == "red"]


def settings_json(config: DriftConfig) -> str:
    return json.dumps(config.to_dict(), sort_keys=True)


def compute(preds, config: DriftConfig) -> DriftView:
    """The three lights of a validated dataset or an aggregate's per-day tables (no Streamlit;
    cached by :func:`drift_for`)."""
    skipped = tuple(m for m, k in preds.score_kinds.items() if k != "probability")
    try:
        d = board_drift_of(preds, config)
    except InputError as err:
        grey = {
            f: Light(
                family=f, color="grey", reason=t("Not computed: the drift settings do not fit this dataset.", _L()), details={}
            )
            for f in FAMILIES
        }
        return DriftView(lights=grey, report=None, calibration={}, skipped_models=skipped, config=config, error=err)
    return DriftView(lights=d.lights, report=d.report, calibration=d.calibration, skipped_models=d.skipped, config=config)


@st.cache_resource(max_entries=16, show_spinner=t("Computing drift …", _L()))
def _drift(dataset_id: int, sha: str, settings: str, source: str, _preds) -> DriftView:
    return compute(_preds, DriftConfig.from_dict(json.loads(settings)))


def drift_for(dataset_id: int, sha: str, preds, config: DriftConfig, *, quiet: bool = False) -> DriftView:
    """Cached :func:`compute`, keyed by (dataset id, file SHA-256, settings JSON).

    An aggregate whose feature references were fitted for another reference window is
    aggregated again from its path (cached); when the path cannot be read, a warning says so
    (unless ``quiet``) and the stored tables give the label and calibration lights."""
    from evalcore.board import BoardConfig

    agg, source = state.aggregate_for(preds, BoardConfig(n_resamples=0, drift=config.to_dict()))
    if agg is None:
        if not quiet:
            st.warning(
                t(
                    "**The source was not read again** ({source}), so the feature light cannot use these reference settings.",
                    _L(),
                    source=source,
                ),
                icon=":material/cloud_off:",
            )
        agg, source = preds, "stored"
    return _drift(dataset_id, sha, settings_json(config), source, agg)


# --------------------------------------------------------------------------- banner


def banner() -> None:
    """A warning on every page while a drift light of the chosen dataset is red.

    Cheap: one settings query, then the cached predictions and drift. Silent when there is
    no time column or the dataset cannot be read (the page itself reports that).
    """
    ds = state.current_dataset_id()
    if ds is None:
        return
    store = state.store()
    try:
        rec = store.get_dataset(ds)
        if not rec.mapping.get("time"):
            return
        preds = state.load_data(rec, store)
        config, _ = load_config(store, rec.id)
        view = drift_for(rec.id, rec.sha256, preds, config, quiet=True)
    except (InputError, StoreError):  # an unreadable dataset: the page itself reports it, not twice
        return
    except Exception as err:  # noqa: BLE001 - a bug here must not silently remove a red light
        st.error(
            t(
                "The drift lights could not be computed ({name}: {err}). Until this is fixed, the board's "
                "advice is missing its drift check.",
                _L(),
                name=type(err).__name__,
                err=md_text(err),
            ),
            icon=":material/error:",
        )
        return
    if view.any_red:
        red = view.red_families
        what = red[0] if len(red) == 1 else ", ".join(red[:-1]) + " and " + red[-1]
        with st.container(key="drift_banner"):
            text, link = st.columns([5, 1], vertical_alignment="center")
            text.warning(BANNER.format(what=f"{what} light{'s' if len(red) > 1 else ''} red"), icon=":material/traffic:")
            link.page_link(PAGE, label=t("See what drifted", _L()), icon=":material/arrow_forward:")


# --------------------------------------------------------------------------- page helpers


def light_word(color: str, locale: str = "en") -> str:
    """A light's colour with its meaning, as the lights say it: "red — drift" (红 — 漂移)."""
    return f"{t(color, locale)} — {t(BADGE[color][1], locale)}" if color in BADGE else color


def show_light(family: str, light: Light) -> None:
    """One light: a coloured dot, the family, its colour word, and the one-line reason."""
    color = BADGE[light.color][0]
    with st.container(border=True, height="stretch", key=f"drift_light_{family}"):
        st.markdown(f"#### :{color}[⬤] {t(FAMILY_TITLES[family], _L())}", help=term("drift", _L()))
        st.badge(light_word(light.color, _L()), color=color)
        st.text(light_reason(light.reason, _L()))


# the heatmap's room beside its plot (feature names, colour bar), and per window: a number like
# "0.12" needs about 36 px, a grey one below its noise floor like "(0.000079)" about 70 px
HEATMAP_SIDES_PX, HEATMAP_CELL_PX, HEATMAP_GREY_CELL_PX = 340, 36, 70


def heatmap_number_css(n_windows: int, key: str = "drift_heatmap") -> str:
    """CSS that leaves out the heatmap's cell numbers where the chart is too narrow for them to
    stand apart, judged on the chart's own width (a container query), so a wide screen keeps them:
    first the grey numbers below their noise floor and the × marks (they ran into one another at
    1366 px with 15 windows), then all (820 px). The colours and the hover still say everything."""
    n = max(int(n_windows), 1)
    grey, every = HEATMAP_SIDES_PX + HEATMAP_GREY_CELL_PX * n, HEATMAP_SIDES_PX + HEATMAP_CELL_PX * n
    k = f".st-key-{key}"
    return (
        f"<style>{k}{{container-type:inline-size}}"
        f"@container (max-width:{grey}px){{{k} .textpoint{{display:none}}}}"
        f"@container (max-width:{every}px){{{k} .heatmap-label{{display:none}}}}</style>"
    )


def windows_caption(view: DriftView) -> str:
    ld = view.report.label
    c = view.config
    ref = t("Reference {label} ({n} rows)", _L(), label=ld.reference.label, n=fmt.count(ld.reference.n))
    if not ld.windows:
        return ref + t(" · no whole {window_days}-day window after it yet.", _L(), window_days=c.window_days)
    return tn(
        "{ref} · {windows} current windows of {window_days} days sliding by {n} day, the latest {label} ({rows} rows).",
        "{ref} · {windows} current windows of {window_days} days sliding by {n} days, the latest {label} ({rows} rows).",
        c.step_days,
        _L(),
        ref=ref,
        windows=len(ld.windows),
        window_days=c.window_days,
        label=ld.windows[-1].label,
        rows=fmt.count(ld.windows[-1].n),
    )


def too_few_notes(view: DriftView) -> list[str]:
    """Say which windows had too few rows to judge (they never light red)."""
    notes = []
    r = view.report
    if r.feature is not None and (r.feature.level == -1).any():
        cells = int((r.feature.level == -1).sum())
        notes.append(
            tn(
                "Feature drift: {n} feature × window cell had too few rows to tell drift from noise (crossed in the "
                "heatmap); it never lights red.",
                "Feature drift: {n} feature × window cells had too few rows to tell drift from noise (crossed in the "
                "heatmap); they never light red.",
                cells,
                _L(),
            )
        )
    for name, levels in [
        (t("Label drift", _L()), r.label.level if r.label is not None else None),
        *[(t("Calibration drift ({m})", _L(), m=m), cd.level) for m, cd in view.calibration.items()],
    ]:
        if levels is not None and (levels == -1).any():
            n = int((levels == -1).sum())
            notes.append(
                tn(
                    "{name}: {n} window had too few rows (grey markers); it never lights red.",
                    "{name}: {n} windows had too few rows (grey markers); they never light red.",
                    n,
                    _L(),
                    name=name,
                )
            )
    return notes


def day_range(preds) -> tuple[dt.date, dt.date]:
    """The first and the last day with data (rows' time column, or an aggregate's per-day table)."""
    days = preds.day_cells["date"]
    return pd.Timestamp(np.min(days)).date(), pd.Timestamp(np.max(days)).date()


def has_time(preds) -> bool:
    """Whether drift can be computed: a time column (and, for an aggregate, its per-day tables)."""
    return preds.time_column is not None and (preds.day_cells is not None or bool(preds.drift_error))


def feature_names(preds) -> list[str]:
    """The mapped feature columns (an aggregate: those of its stored query)."""
    rec = state.dataset_record()
    return [str(f) for f in ((rec.mapping or {}).get("features") or [])]


def seed_form(dataset_id: int, config: DriftConfig, preds: Aggregate) -> None:
    """Put the saved settings into the form's widgets when the dataset or the saved
    settings changed, or the widgets were cleaned up by a page switch. Widgets are
    created without ``value=``, so session state is their only source."""
    signature = (dataset_id, settings_json(config))
    if st.session_state.get(_SEEDED_FOR) == signature and all(k in st.session_state for k in FORM_KEYS):
        return
    first, last = day_range(preds)
    start = first if config.reference_start is None else pd.Timestamp(config.reference_start).date()
    names = feature_names(preds)
    chosen = names if config.features is None else [f for f in config.features if f in names]
    st.session_state.update(
        {
            K_START: min(max(start, first), last),
            K_REF_DAYS: config.reference_days,
            K_WINDOW: config.window_days,
            K_KS: float(config.ks_threshold),
            K_RED: config.consecutive_red,
            K_PSI_Y: float(config.psi_yellow),
            K_PSI_R: float(config.psi_red),
            K_FEATURES: chosen,
        }
    )
    st.session_state[_SEEDED_FOR] = signature


def save_form(store, dataset_id: int, base: DriftConfig, preds: Aggregate) -> None:
    """Form-submit callback: validate the form's values and save them with the dataset."""
    ss = st.session_state
    names = feature_names(preds)
    chosen = list(ss[K_FEATURES])
    if names and not chosen:
        ss[MESSAGE] = ("error", t("Choose at least one feature; nothing was saved.", _L()))
        return
    start = ss[K_START]
    try:
        config = dataclasses.replace(
            base,
            reference_start=None if start == day_range(preds)[0] else start.isoformat(),
            reference_days=int(ss[K_REF_DAYS]),
            window_days=int(ss[K_WINDOW]),
            ks_threshold=float(ss[K_KS]),
            consecutive_red=int(ss[K_RED]),
            psi_yellow=float(ss[K_PSI_Y]),
            psi_red=float(ss[K_PSI_R]),
            features=None if set(chosen) == set(names) else tuple(f for f in names if f in chosen),
        )
    except InputError as err:
        ss[MESSAGE] = ("error", t("Not saved: ", _L()) + " ".join(p.message for p in err.problems))
        return
    try:
        drift_settings.save_config(store, state.current_user(), dataset_id, config)
    except governance.Forbidden as err:
        ss[MESSAGE] = ("error", t("Not saved: {err}", _L(), err=ui.error_text(err, _L())))
        return
    ss[MESSAGE] = ("success", t("Drift settings saved with this dataset.", _L()))


def reset_form(store, dataset_id: int) -> None:
    """Reset-button callback: save the defaults with the dataset."""
    try:
        drift_settings.reset_config(store, state.current_user(), dataset_id)
    except governance.Forbidden as err:
        st.session_state[MESSAGE] = ("error", t("Not reset: {err}", _L(), err=ui.error_text(err, _L())))
        return
    st.session_state[MESSAGE] = ("success", t("Drift settings reset to the defaults.", _L()))
