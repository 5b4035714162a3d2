"""Session/URL state and cached wrappers for the Streamlit pages.

Widgets shared by all pages live in the entry point's sidebar (they never disappear on a
page switch). Big objects are cached by a small key (dataset id + file hash), never by
hashing a frame (Streamlit samples large frames when hashing).
"""

from __future__ import annotations

import json
import os

import streamlit as st

from board import export, services
from board.app.text import md_text
from board.store import Store
from board.words import fmt, i18n
from board.words.i18n import N_, t
from evalcore import InputError
from evalcore.aggregate import Aggregate
from evalcore.counts import ScoreCounts
from evalcore.data import Predictions
from evalcore.drift import DriftConfig


def spinning(message: str):
    """A cached function's spinner in the reader's language: Streamlit's ``show_spinner`` text is
    fixed when the module is imported, so the cache shows none and this shows ``message`` (an
    ``N_``-marked English message) translated at call time (Streamlit shows a spinner only when
    the call takes longer than half a second, so a cache hit shows nothing)."""

    def wrap(fn):
        import functools

        @functools.wraps(fn)
        def call(*args, **kwargs):
            with st.spinner(t(message, current_locale())):
                return fn(*args, **kwargs)

        call.clear = fn.clear  # call.__wrapped__: the cached function without the spinner (for use inside
        return call  # another cached function, where Streamlit would record the spinner for replay)

    return wrap


DATASET_KEY = "dataset"  # sidebar selectbox, bound to the URL (?dataset=ID)
TABLE_KEY = "value_table_name"
LOCALE_KEY = "locale"  # this tab's language ("en" | "zh_CN"), the one value every page reads
LOCALE_USER_KEY = "locale_user"  # the account whose stored language this tab has applied
LANG_PARAM = "lang"  # ?lang=zh-CN
LANG_SWITCH_KEY = "lang_switch"


def _request_locale() -> str:
    """The language of a tab that chose none: ``EVALBOARD_LANG``, else the browser's
    ``Accept-Language``, else English."""
    if i18n.normalize(os.environ.get(i18n.LANG_ENV)):
        return i18n.default_locale()
    try:
        header = st.context.headers.get("Accept-Language")
    except Exception:  # no request (AppTest, a bare script run)
        header = None
    return i18n.from_accept_language(header) or i18n.DEFAULT_LOCALE


def init_locale() -> str:
    """Settle this run's language before anything is drawn: the URL's ``?lang=`` wins (a shared
    link), else the tab's choice, else the deployment's or the browser's default."""
    ss = st.session_state
    linked = i18n.normalize(st.query_params.get(LANG_PARAM))
    if linked is not None:
        ss[LOCALE_KEY] = linked
    elif ss.get(LOCALE_KEY) not in i18n.LOCALES:
        ss[LOCALE_KEY] = _request_locale()
    return ss[LOCALE_KEY]


def apply_user_locale(username: str) -> None:
    """After a login: the account's stored language, unless the address names one (``?lang=``)."""
    ss = st.session_state
    if ss.get(LOCALE_USER_KEY) == username:
        return
    ss[LOCALE_USER_KEY] = username
    rec = store().get_user(username)
    if rec is not None and rec.language in i18n.LOCALES and i18n.normalize(st.query_params.get(LANG_PARAM)) is None:
        ss[LOCALE_KEY] = rec.language
    _sync_lang_param()


def _sync_lang_param() -> None:
    """Keep ``?lang=`` in the address bar (so a copied link opens in the same language); an
    English tab without one stays clean."""
    loc = current_locale()
    want = url_lang(loc)
    have = st.query_params.get(LANG_PARAM)
    if have != want and (loc != i18n.DEFAULT_LOCALE or have is not None):
        st.query_params[LANG_PARAM] = want


def url_lang(locale: str) -> str:
    """The code in the address: "zh-CN", "en"."""
    return locale.replace("_", "-")


def current_locale() -> str:
    """This tab's language ("en" | "zh_CN"): every page passes it to ``t()``, ``fmt`` and the charts."""
    loc = st.session_state.get(LOCALE_KEY)
    return loc if loc in i18n.LOCALES else init_locale()


def _language_changed() -> None:
    chosen = st.session_state.get(LANG_SWITCH_KEY)
    if chosen not in i18n.LOCALES:
        return
    st.session_state[LOCALE_KEY] = chosen
    st.query_params[LANG_PARAM] = url_lang(chosen)
    user = current_user()
    if user is not None:  # kept with the account (audited); a meeting screen has none
        from board.access import governance

        governance.set_own_language(store(), user, chosen)


def language_switch() -> None:
    """The sidebar's 简体中文 / English switch; the choice is kept with the account and in the URL."""
    loc = current_locale()
    _sync_lang_param()
    st.session_state[LANG_SWITCH_KEY] = loc
    st.segmented_control(
        "语言 / Language",
        list(i18n.LOCALES),
        format_func=i18n.LOCALES.get,
        key=LANG_SWITCH_KEY,
        on_change=_language_changed,
        help=t("The language of every page, chart and export; kept with your account.", loc),
    )


@st.cache_resource
def get_store(url: str | None = None, data_dir: str | None = None) -> Store:
    store = Store(url=url, data_dir=data_dir)
    services.ensure_demo(store)
    return store


def store() -> Store:
    return get_store(os.environ.get("EVALBOARD_DB_URL"), os.environ.get("EVALBOARD_DATA_DIR"))


@spinning(N_("Reading the dataset …"))
@st.cache_resource(max_entries=8, show_spinner=False)
def _predictions(dataset_id: int, sha: str, _store: Store) -> Predictions:
    return services.load_predictions(_store, dataset_id)


@spinning(N_("Reading the stored aggregate …"))
@st.cache_resource(max_entries=8, show_spinner=False)
def _aggregate(dataset_id: int, sha: str, _store: Store) -> Aggregate:
    return services.load_aggregate(_store, dataset_id)


@spinning(N_("Counting the rows by score …"))
@st.cache_resource(max_entries=8, show_spinner=False)
def _rows_aggregate(dataset_id: int, sha: str, drift: str, _store: Store) -> Aggregate:
    """An upload's aggregate: from the board cache when any process counted it before (a restart
    or a fresh server then reads no file), else its rows read and counted (and kept there)."""
    from board.services import board_cache

    return board_cache.cached_aggregate(
        _store,
        board_cache.aggregate_key(sha, "rows", drift),
        lambda: services.rows_aggregate(
            _predictions.__wrapped__(dataset_id, sha, _store), DriftConfig.from_dict(json.loads(drift))
        ),
    )


@st.cache_resource(max_entries=32)
def _counts(dataset_id: int, sha: str, model: str, _agg: Aggregate) -> ScoreCounts:
    return services.model_counts(_agg, model)


def session_memo(key: str, token, compute):
    """``compute()`` once per ``token`` (e.g. a file's SHA-256) in this session, kept in one
    session slot ``key``: a rerun does not parse an upload again (issue 17 F17), and per-user
    data never sits in a process-wide cache that outlives the tab (F8). An ``InputError`` is
    kept too, so a bad file is reported without being read again."""
    slot = st.session_state.get(key)
    if slot is None or slot[0] != token:
        try:
            value = compute()
        except InputError as err:
            value = err
        st.session_state[key] = slot = (token, value)
    if isinstance(slot[1], InputError):
        raise slot[1]
    return slot[1]


def current_dataset_id() -> int | None:
    return st.session_state.get(DATASET_KEY)


def load_data(rec, s: Store | None = None) -> Aggregate:
    """The cached aggregate every page reads (DESIGN: one path): an upload's rows counted by
    (segment, score, label) with its drift tables fitted on the saved drift settings, or the
    stored aggregate of a dataset registered by path."""
    s = s or store()
    if rec.is_aggregate:
        return _aggregate(rec.id, rec.sha256, s)
    from board.services.drift_settings import load_config

    drift, _ = load_config(s, rec.id)
    return _rows_aggregate(rec.id, rec.sha256, json.dumps(drift.to_dict(), sort_keys=True), s)


def _report_unreadable(run):
    try:
        return run()
    except InputError as err:
        from board.words.problems import problem_line

        L = current_locale()
        st.error(
            t("The stored dataset no longer validates:", L)
            + "\n\n"
            + "\n".join(f"- {md_text(problem_line(p, L))}" for p in err.problems)
        )
    except Exception as err:  # noqa: BLE001 - a broken store must not show a traceback
        st.error(t("The dataset could not be opened: {error}", current_locale(), error=md_text(err)))
    return None


def current_data() -> Aggregate | None:
    """The aggregate of the dataset chosen in the sidebar (:func:`load_data`): the one thing
    pages compute numbers from. Shows an error and returns None if it cannot be read (e.g.
    its file was removed)."""
    ds = current_dataset_id()
    if ds is None:
        return None
    s = store()
    return _report_unreadable(lambda: load_data(s.get_dataset(ds), s))


def current_rows(what: str | None = None, *, why: str | None = None) -> Predictions | None:
    """The chosen dataset's rows, for what truly needs rows (re-training, cross-fitted
    recalibration): the one interface to rows. A dataset registered by path has none: an
    info box says so (:func:`needs_rows`) and the result is None."""
    rec = dataset_record()
    if rec is None:
        return None
    if rec.is_aggregate:
        needs_rows(what, why=why)
        return None
    s = store()
    return _report_unreadable(lambda: _predictions(rec.id, rec.sha256, s))


def needs_rows(what: str | None = None, *, why: str | None = None, stop: bool = False) -> None:
    """An info box: ``what`` needs rows, the chosen dataset is an aggregate (counts only).
    ``what`` and ``why`` come translated from the page."""
    rec = dataset_record()
    L = current_locale()
    st.info(
        t(
            "**{what} needs rows**: {why}. The dataset “{name}” is an aggregate of {n} rows from {path}: only "
            "counts by (segment, score, label) were stored, not the rows. To use it, upload a sample of the rows "
            "on the Upload page (files that fit in memory), or pick an uploaded dataset in the sidebar.",
            L,
            what=what or t("This page", L),
            why=why or t("it works on individual rows", L),
            name=md_text(rec.name),
            n=fmt.count(rec.n_rows),
            path=md_text(rec.source_path),
        ),
        icon=":material/table_rows:",
    )
    if stop:
        st.stop()


def counts_for(data, model: str) -> ScoreCounts:
    rec = dataset_record()
    return _counts(rec.id, rec.sha256, model, data)


def committed_table():
    """The committed value table of this session (survives page switches), loaded from the store once."""
    name = st.session_state.get(TABLE_KEY, services.DEFAULT_TABLE_NAME)
    key = f"committed_table::{name}"
    if key not in st.session_state:
        table, row_version = services.load_value_table(store(), name)
        st.session_state[key] = (table, row_version)
    return st.session_state[key]


def set_committed_table(table, row_version) -> None:
    name = st.session_state.get(TABLE_KEY, services.DEFAULT_TABLE_NAME)
    st.session_state[f"committed_table::{name}"] = (table, row_version)


def threshold_key(model: str) -> str:
    return f"threshold_{model}"


def deployed_threshold(data, model: str) -> float:
    """The deployed threshold of a model (session state, shared by pages; default per evalcore)."""
    key = f"committed_{threshold_key(model)}"
    if key in st.session_state:
        return float(st.session_state[key])
    return services.default_threshold_of(data, model)


def _signature_badge(s: Store) -> None:
    """'Awaiting your signature (n)' for a signing role: the pending versions its account may sign."""
    from board.access import governance

    user = current_user()
    if user is not None and user.role in governance.SIGNING_ROLES:
        n = len(governance.awaiting_signature(s, user))
        st.badge(
            t("Awaiting your signature ({n})", current_locale(), n=n),
            icon=":material/signature:",
            color="orange" if n else "gray",
        )


def sidebar() -> None:
    """The shared sidebar: dataset and value table choice (bound to the URL)."""
    s = store()
    L = current_locale()
    records = s.list_datasets()
    ids = [r.id for r in records]
    names = {r.id: f"{r.name} · {lake_describe(r)}" for r in records}
    pending = st.session_state.pop("register_select", None)  # a dataset just registered by path
    if pending in ids:
        st.session_state[DATASET_KEY] = pending
    if st.session_state.get(DATASET_KEY) not in ids:
        linked = st.query_params.get(DATASET_KEY)  # a shared link (?dataset=ID) opened in a new session
        chosen = next((i for i in ids if str(i) == linked), None)
        if chosen is None:
            # a Chinese reader's first board is the Chinese demo (issue 15 item 7); others open Demo 1
            demos = [services.demo.ZH_UPLOADER] if i18n.is_chinese(current_locale()) else []
            demos.append("evalboard demo")
            chosen = next((r.id for who in demos for r in records if r.uploader == who), ids[0] if ids else None)
            if linked is not None:  # say so: a link must never silently show another dataset's board
                st.warning(
                    t(
                        "Dataset #{id} does not exist or was removed; showing “{name}” instead. Choose another in the sidebar.",
                        L,
                        id=md_text(linked),
                        name=md_text(names.get(chosen, t("no dataset", L))),
                    ),
                    icon=":material/link_off:",
                )
        st.session_state[DATASET_KEY] = chosen
    _select_bound_table(s)
    with st.sidebar:
        _signature_badge(s)
        st.selectbox(
            t("Dataset", L),
            ids,
            format_func=lambda i: names.get(i, str(i)),
            key=DATASET_KEY,
            bind="query-params",
            help=t("Shared by every page. Upload more on the Upload page.", L),
        )
        bound = bound_table()
        tables = services.evaluation.active_table_names(s) or [services.DEFAULT_TABLE_NAME]
        if bound not in tables:  # an archived table stays visible where a dataset is still priced with it
            tables = sorted([*tables, bound])
        if st.session_state.get(TABLE_KEY) not in tables:
            st.session_state[TABLE_KEY] = bound
        st.selectbox(
            t("Value table", L),
            tables,
            key=TABLE_KEY,
            bind="query-params",
            help=t(
                "The decision whose outcomes are priced; opening a dataset selects the table it is bound to. "
                "Picking another here is a what-if for this tab: the binding changes only on the Datasets page.",
                L,
            ),
        )
        if st.session_state.get(TABLE_KEY) != bound and current_dataset_id() is not None:
            st.warning(
                t(
                    "What-if: this dataset is priced with “{bound}”; the pages now use “{table}”. "
                    "Change the binding on the Datasets page.",
                    L,
                    bound=md_text(bound),
                    table=md_text(st.session_state[TABLE_KEY]),
                ),
                icon=":material/swap_horiz:",
            )


BOUND_FOR_KEY = "value_table_bound_for"  # the dataset whose bound table the sidebar last selected


def bound_table() -> str:
    """The value table the chosen dataset is bound to (the default table when never bound)."""
    return services.evaluation.bound_table_name(store(), current_dataset_id())


def _select_bound_table(s: Store) -> None:
    """Opening a dataset selects the value table it is bound to (issue 16 item 1): once per
    dataset opened, so a table picked in the sidebar afterwards (a what-if) stays until another
    dataset is opened. A link's table (``?value_table_name=``) wins when the tab opens."""
    ds = st.session_state.get(DATASET_KEY)
    if ds is None or st.session_state.get(BOUND_FOR_KEY) == ds:
        return
    first = BOUND_FOR_KEY not in st.session_state
    st.session_state[BOUND_FOR_KEY] = ds
    if first and st.query_params.get(TABLE_KEY):
        return
    st.session_state[TABLE_KEY] = services.evaluation.bound_table_name(s, ds)


LINK_KEY = "login_link"  # the query parameters of the address a tab opened before its login


def remember_link() -> None:
    """On the login page: keep the address's query parameters (a shared link: ?dataset=…,
    t_<model>=…, present=1) for after the login, which reruns into another page and drops them."""
    st.session_state.setdefault(LINK_KEY, st.query_params.to_dict())


def restore_link() -> None:
    """After a login: put the remembered query parameters back (the ones the address has win)."""
    for k, v in (st.session_state.pop(LINK_KEY, None) or {}).items():
        if k not in st.query_params:
            st.query_params[k] = v


def dataset_record():
    ds = current_dataset_id()
    return None if ds is None else store().get_dataset(ds)


def lake_describe(rec) -> str:
    from board.engines.lake import describe

    return describe(rec)


def sync_thresholds_with_url(preds) -> dict:
    """Deployed thresholds, shared by pages, mirrored in the URL as ``t_<model>=…``.

    A link that carries thresholds sets them once (when the session opens it); afterwards the
    session's values are written back, so the address bar always reopens the same board.
    """
    out = {}
    for m in preds.score_kinds:
        key = f"committed_{threshold_key(m)}"
        raw = st.query_params.get(f"t_{m}")
        if raw is not None and key not in st.session_state:
            try:
                st.session_state[key] = float(raw)
            except ValueError:
                st.warning(
                    t(
                        "The link's threshold for {model} ({raw}) is not a number; using {t}.",
                        current_locale(),
                        model=md_text(m),
                        raw=md_text(repr(raw)),
                        t=fmt.score(deployed_threshold(preds, m)),
                    )
                )
        out[m] = deployed_threshold(preds, m)
        st.query_params[f"t_{m}"] = f"{out[m]:.6g}"
    return out


def table_json(table) -> str:
    return json.dumps(table.to_dict(), sort_keys=True)


@spinning(N_("Computing the board (bootstrap, drift, action) …"))
@st.cache_resource(max_entries=8, show_spinner=False)
def _board(dataset_id: int, sha: str, table: str, config: str, source: str, _data):
    """The board, from this process's memory, else the data directory's board cache (another
    process, an earlier start, or the background job after an upload, approval or settings change
    computed it: :mod:`board.services.board_cache`), else computed and kept in both."""
    from board.services import board_cache
    from evalcore import ValueTable
    from evalcore.board import BoardConfig

    cache = board_cache.cache_for(store())
    key = cache.key(sha, table, config, source)
    hit = cache.get(key)
    if hit is not None:
        return hit
    counts = {m: _counts(dataset_id, sha, m, _data) for m in _data.models}
    result = board_cache.compute(
        _data, ValueTable.from_dict(json.loads(table)), BoardConfig(**json.loads(config)), source, counts
    )
    cache.put(key, result)
    return result


@spinning(N_("Aggregating the source again with DuckDB (new thresholds or settings) …"))
@st.cache_resource(max_entries=8, show_spinner=False)
def _reaggregated(dataset_id: int, sha: str, options: str, _rec, _stored) -> Aggregate:
    from board.engines.lake import reaggregate

    return reaggregate(_rec, json.loads(options), stored=_stored)


@spinning(N_("Counting the rows for these settings …"))
@st.cache_resource(max_entries=8, show_spinner=False)
def _rows_for(dataset_id: int, sha: str, config: str, _store: Store) -> Aggregate:
    """An upload's aggregate serving a board configuration, from the board cache when counted
    before (by any process, or the background job after the upload), else counted from its rows."""
    from board.services import board_cache
    from evalcore.board import BoardConfig, aggregate_for_board

    return board_cache.cached_aggregate(
        _store,
        board_cache.aggregate_key(sha, "serving", config),
        lambda: aggregate_for_board(_predictions.__wrapped__(dataset_id, sha, _store), BoardConfig(**json.loads(config))),
    )


def aggregate_for(data: Aggregate, config):
    """(aggregate, source key) serving ``config`` (the paired table at its thresholds, its
    scheme, its drift references), cached per dataset + settings: an upload's rows counted for
    it ("rows"); a registered path's stored aggregate ("stored") or, when that cannot serve
    ``config``, the path aggregated again with DuckDB. If the path cannot be read, returns
    (None, the reason)."""
    from board.engines.lake import reaggregation_for

    rec = dataset_record()
    if not rec.is_aggregate:
        key = json.dumps(config.to_dict(), sort_keys=True)
        return _rows_for(rec.id, rec.sha256, key, store()), "rows"
    options = reaggregation_for(data, rec.options or {}, config)
    if options is None:
        return data, "stored"
    key = json.dumps(options, sort_keys=True)
    try:
        return _reaggregated(rec.id, rec.sha256, key, rec, data), key
    except InputError as err:
        return None, "; ".join(p.message for p in err.problems)


def board_result(data: Aggregate, table, config):
    """The cached board for (dataset, file hash, value table, config), from the aggregate
    serving ``config`` (:func:`aggregate_for`).

    When a registered path's stored aggregate cannot serve ``config`` and the path cannot be
    read again, a warning says why and the board is shown without the bootstrap (point numbers
    are exact anyway).
    """
    import dataclasses

    rec = dataset_record()
    agg, source = aggregate_for(data, config)
    if agg is None:
        st.warning(
            t(
                "**The source was not read again** ({source}). The stored aggregate was cut for other settings "
                "(thresholds, resampling scheme or drift reference), so the intervals and the comparison are "
                "left out below; the point numbers are exact.",
                current_locale(),
                source=md_text(source),
            ),
            icon=":material/cloud_off:",
        )
        agg, config = data, dataclasses.replace(config, n_resamples=0)
        if data.drift_fit is not None:
            config = dataclasses.replace(config, drift=None)
        source = "stored, no bootstrap"
    return _board(rec.id, rec.sha256, table_json(table), json.dumps(config.to_dict(), sort_keys=True), source, agg)


def board_result_progressive(data: Aggregate, table, config):
    """(board, job): the board of :func:`board_result` when it is ready (this process's memory,
    the board cache), else its point estimates (the same board without the bootstrap: every point
    number is final) and the background job computing the whole board (issue 18 item 1). The
    page shows the point board at once and reruns when the job is done. ``EVALBOARD_PROGRESSIVE=0``
    (the test suite's default) computes the whole board before returning, as before."""
    import dataclasses

    from board.services import board_cache

    if os.environ.get("EVALBOARD_PROGRESSIVE", "1") == "0" or not config.n_resamples:
        return board_result(data, table, config), None
    rec = dataset_record()
    agg, source = aggregate_for(data, config)
    if agg is None:  # a registered path that cannot serve these settings: board_result says so
        return board_result(data, table, config), None
    tj, cj = table_json(table), json.dumps(config.to_dict(), sort_keys=True)
    cache = board_cache.cache_for(store())
    key = cache.key(rec.sha256, tj, cj, source)
    if key in cache:
        return _board(rec.id, rec.sha256, tj, cj, source, agg), None
    job = board_cache.compute_in_background(store(), key, agg, table, config, source)
    if job.done():  # finished meanwhile, or failed: _board reads it, or computes it and shows the error
        return _board(rec.id, rec.sha256, tj, cj, source, agg), None
    point = json.dumps(dataclasses.replace(config, n_resamples=0).to_dict(), sort_keys=True)
    return _board(rec.id, rec.sha256, tj, point, source, agg), job


def segments_of(data: Aggregate, table, deployed: dict, model: str, column: str, *, log_grid: bool = False):
    """The threshold × segment curves of one model at its deployed threshold, from the segment
    cells (:func:`evalcore.aggregate.segment_curves_of`): on the board's grid (log-spaced for
    rare positives) when ``log_grid``, else evenly spaced over the score range."""
    from evalcore.aggregate import segment_curves_of

    return segment_curves_of(data, model, column, table, deployed=deployed[model], board_grid=log_grid)


def board_config(preds, thresholds: dict):
    """Board settings (:func:`board.services.warm.board_config`: 1000 replicates, seed 0,
    clustered by the group id when one is mapped, the dataset's saved drift settings) — the same
    function the background precompute uses, so both find each other's boards."""
    from board.services import warm

    return warm.board_config(store(), current_dataset_id(), preds, thresholds)


def current_user():
    """The user app.py logged in for this run (auth.User), or None."""
    from board.access import auth

    info = st.session_state.get(auth.SESSION_USER_KEY)
    return auth.User(username=info["username"], role=info["role"]) if info else None


def current_lens(table_name: str | None = None):
    """How this user sees amounts (issue 14 item 8): their own choice, else the value table's,
    else expected value (``board.words.lens``)."""
    from board.words.lens import lens_for

    s = store()
    name = table_name or st.session_state.get(TABLE_KEY, services.DEFAULT_TABLE_NAME)
    user = current_user()
    rec = s.get_user(user.username) if user is not None else None  # None for a meeting link's screen
    return lens_for(s.get_value_table_display(name), rec.display if rec is not None else None, locale=current_locale())


def set_own_display(display: str | None) -> None:
    """Keep this user's loss/value choice (audited); the next run shows every page that way."""
    from board.access import governance

    governance.set_own_display(store(), current_user(), display)


def table_version(table):
    """(label, stored version or None) of the session's value table; see services.table_version."""
    return services.table_version(store(), st.session_state.get(TABLE_KEY, services.DEFAULT_TABLE_NAME), table)


def save_snapshot(result, rec, version_label: str, version, export_name: str | None = None) -> int:
    """Keep this board (inputs, every number and the value-table version it used) in the history.
    ``export_name``: the dataset as its HTML prints it (the page's ``over_time_view.export_name``:
    the name and what the meta line adds); the dataset's name when None."""
    from board.access import governance

    ev_id = governance.record_evaluation(
        store(),
        current_user(),
        rec.id,
        table_name=result.table.name,
        models=list(result.models),
        config=result.config.to_dict(),
        result={
            **result.to_dict(),
            "dataset_name": rec.name,
            "table_version": version_label,
            "table_approved": services.evaluation.is_approved(version),  # a snapshot says whether a signed-off version priced it
        },
        version=version,
        # in the reader's language, saying what the board's meta line says (late labels, a rescaling applied)
        export_html=export.board_html(
            result,
            dataset_name=export_name or rec.name,
            table_version=version_label,
            lens=current_lens(),
            locale=current_locale(),
        ),
    )
    st.toast(t("Board saved (#{id}); it will be the comparison for the next board.", current_locale(), id=ev_id))
    return ev_id


def record_export(what: str, detail: dict) -> None:
    from board.access import governance

    governance.record_export(store(), current_user(), what, detail)


def last_snapshot(result, rec):
    """The most recent saved board with the same models, other than an identical one (any dataset)."""
    current = result.to_dict()
    for ev in store().list_evaluations():
        if ev.models == list(result.models) and not (
            ev.dataset_id == rec.id
            and ev.result.get("config") == current["config"]
            and ev.result.get("value_table") == current["value_table"]
        ):
            return ev
    return None


def snapshot_value(snapshot, path: str):
    """A value from a saved board by its JSON path (e.g. "models.new.at_threshold.ev"), or None."""
    if snapshot is None:
        return None
    node = snapshot.result
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node
