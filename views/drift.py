"""Drift (SPEC §3.6): feature, label and calibration lights, what lit them, and the settings saved with the dataset."""

import streamlit as st

from board.access import governance
from board.app import drift_view as dv
from board.app import state, ui
from board.charts import drift as cd
from board.words.glossary import term
from board.words.i18n import t

L = state.current_locale()

preds = state.current_data()  # rows, or the stored aggregate (its per-day tables)
if preds is None:
    st.stop()
store = state.store()
rec = state.dataset_record()
agg = rec.is_aggregate
st.title(t("Drift", L), help=term("drift", L))
if not dv.has_time(preds):
    st.info(dv.NEEDS_TIME, icon=":material/schedule:")
    st.stop()

config, note = dv.load_config(store, rec.id)
if note:
    st.warning(note)
view = dv.drift_for(rec.id, rec.sha256, preds, config)

cols = st.columns(3)
for col, fam in zip(cols, dv.FAMILIES):
    with col:
        dv.show_light(fam, view.lights[fam])

with st.expander(t("Settings — saved with this dataset", L), icon=":material/settings:", expanded=view.error is not None):
    dv.seed_form(rec.id, config, preds)
    with st.form("drift_settings", border=False):
        a, b, c, d = st.columns(4)
        first, last = dv.day_range(preds)
        a.date_input(
            t("Reference window starts on", L),
            key=dv.K_START,
            min_value=first,
            max_value=last,
            help=t("Default: the first day with data.", L),
        )
        b.number_input(t("Reference length (days)", L), min_value=1, max_value=365, step=1, key=dv.K_REF_DAYS)
        c.number_input(
            t("Window length (days)", L),
            min_value=1,
            max_value=365,
            step=1,
            key=dv.K_WINDOW,
            help=t("Each current window covers this many days and slides by one day.", L),
        )
        d.number_input(t("Consecutive windows for red", L), min_value=1, max_value=60, step=1, key=dv.K_RED)
        a.number_input(
            t("KS threshold (numeric features)", L), min_value=0.01, max_value=1.0, step=0.01, format="%.2f", key=dv.K_KS
        )
        b.number_input(t("PSI yellow (categorical)", L), min_value=0.01, max_value=5.0, step=0.01, format="%.2f", key=dv.K_PSI_Y)
        c.number_input(t("PSI red (categorical)", L), min_value=0.01, max_value=5.0, step=0.01, format="%.2f", key=dv.K_PSI_R)
        ui.multiselect(st, t("Features that count", L), dv.feature_names(preds), key=dv.K_FEATURES)
        may_edit = governance.allowed(state.current_user(), "edit_settings")
        st.form_submit_button(
            t("Save settings", L),
            type="primary",
            key="drift_save",
            disabled=not may_edit,
            on_click=dv.save_form,
            args=(store, rec.id, config, preds),
        )
    st.button(t("Reset to defaults", L), key="drift_reset", disabled=not may_edit, on_click=dv.reset_form, args=(store, rec.id))
    if not may_edit:
        st.caption(
            t(
                "These settings change the board for everyone: only an analyst, business, risk, model-owner "
                "or admin account can save them. You can try values here; they are not saved.",
                L,
            )
        )
    kind, text = st.session_state.pop(dv.MESSAGE, (None, None))
    if kind:
        getattr(st, kind)(text)

if view.error is not None:
    ui.show_problems(view.error, title=t("Drift cannot be computed with these settings", L))
    st.stop()
st.caption(dv.windows_caption(view) + t(" Windows with too few rows say so and never light red.", L))
for line in dv.too_few_notes(view):
    st.caption(line)

fd, ld = view.report.feature, view.report.label
tab_f, tab_l, tab_c = st.tabs([t("Features", L), t("Label", L), t("Calibration", L)])
with tab_f:
    if fd is None:
        st.info(ui.md_text(view.lights["feature"].reason))
    else:
        st.html(dv.heatmap_number_css(fd.statistic.shape[1]))
        ui.plotly_chart(st, cd.feature_heatmap_figure(fd, locale=L), key="drift_heatmap")
        st.caption(
            t(
                "Each cell: the statistic of the window ending that day, coloured by statistic ÷ red "
                "threshold. (grey) = below its 95% noise floor, indistinguishable from sampling noise; × = "
                "too few rows to judge.",
                L,
            )
            + t(" On a narrow screen the numbers are left out where they would run together; point at a cell to read it.", L)
        )
        if fd.windows and agg:
            st.caption(
                t("From the stored aggregate (per-day counts): ", L)
                + (
                    t("KS is exact, as from the rows.", L)
                    if fd.ks_method == "exact"
                    else t("KS is computed on the reference grid, within the bound stated in each reason.", L)
                )
                + t(" The distributions below are drawn on the reference grid.", L)
            )
        if fd.windows:
            a, b = st.columns([1, 2])
            worst = fd.worst if fd.worst in fd.features else fd.features[0]
            feature = a.selectbox(t("Feature", L), list(fd.features), index=fd.features.index(worst), key="drift_feature")
            labels = [w.label for w in fd.windows]
            window = b.selectbox(
                t("Window", L), range(len(labels)), index=len(labels) - 1, format_func=labels.__getitem__, key="drift_window"
            )
            ui.plotly_chart(st, cd.feature_distribution_figure(fd, feature, window=window, locale=L), key="drift_distribution")
        st.dataframe(
            {
                "Feature": list(fd.features),
                "Light": [dv.light_word(c, L) for c in fd.colors],
                "Reason": [dv.light_reason(r, L) for r in fd.reasons],
            },
            hide_index=True,
            width="stretch",
            key="drift_features_table",
            column_config={
                "Feature": st.column_config.TextColumn(t("Feature", L)),
                "Light": st.column_config.TextColumn(t("Light", L), help=term("drift", L)),
                "Reason": st.column_config.TextColumn(t("Reason", L)),
            },
        )
with tab_l:
    if ld.label_definition_change:
        st.warning(
            t(
                "**Possible label-definition change:** the positive rate moved while the features did not. "
                "Check whether what counts as a positive changed before reading this as a change in "
                "production.",
                L,
            )
        )
    ui.plotly_chart(st, cd.label_rate_figure(ld, locale=L), key="drift_label")
    st.caption(ui.md_text(view.lights["label"].reason))
with tab_c:
    if not view.calibration:
        st.info(ui.md_text(view.lights["calibration"].reason))
    else:
        models = list(view.calibration)
        model = st.selectbox(t("Model", L), models, key="drift_cal_model") if len(models) > 1 else models[0]
        ui.plotly_chart(st, cd.calibration_drift_figure(view.calibration[model], locale=L), key="drift_calibration")
        st.caption(ui.md_text(f"{model}: {view.calibration[model].reason}"))
        if view.skipped_models:
            st.caption(t("Not judged (no probabilities): {x}.", L, x=ui.md_text(", ".join(view.skipped_models))))

from board.app import over_time_view  # noqa: E402 - the section below the drift tabs (issue 19)

over_time_view.show(preds)
