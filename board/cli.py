"""Command line: ``python -m board validate|evaluate …`` for pipelines and the weekly automation,
``python -m board users add|list|disable|reset-password`` for accounts, ``python -m board tables
list|show|export|import`` for value tables as code.

Exit code 0 on success, 2 on bad input or bad arguments, with every problem printed and
never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evalcore._errors import InputError  # the rest of evalcore (numpy, pandas, SciPy) loads when a command needs it

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse exits 2 already; keep its message, add a hint
        self.print_usage(sys.stderr)
        print(f"error: {message}\nRun with --help for every option.", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _pair(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    name, value = text.split("=", 1)
    if not name or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE with both parts, got {text!r}")
    return name, value


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def _lang(text: str) -> str:
    from board.words.i18n import normalize

    found = normalize(text)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r}: use en or zh-CN")
    return found


def _locale(args) -> str:
    """--lang, else the deployment's default (EVALBOARD_LANG), else English."""
    from board.words.i18n import default_locale

    return getattr(args, "lang", None) or default_locale()


def _add_data_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--predictions", required=True, type=Path, help="CSV or Parquet file, one row per decision")
    p.add_argument("--label", required=True, help="label column")
    p.add_argument(
        "--score",
        required=True,
        action="append",
        type=_pair,
        metavar="NAME=COL",
        help="model name and its score column (once or twice)",
    )
    p.add_argument(
        "--score-kind",
        action="append",
        type=_pair,
        default=[],
        metavar="NAME=KIND",
        help="probability | score | decision (default: guessed from the values)",
    )
    p.add_argument("--positive", default=None, help="label value of the positive class (default: 1/true/yes)")
    p.add_argument("--segment", action="append", default=[], metavar="COL")
    p.add_argument("--time", default=None, metavar="COL")
    p.add_argument("--group", default=None, metavar="COL")
    p.add_argument("--feature", action="append", default=[], metavar="COL")
    p.add_argument("--weight", default=None, metavar="COL")
    p.add_argument("--drop-missing-labels", action="store_true", help="confirm dropping rows whose label is missing")
    p.add_argument("--max-mb", type=int, default=2048, help="refuse files larger than this (MB)")
    p.add_argument(
        "--lang",
        type=_lang,
        default=None,
        metavar="LANG",
        help="language of the text output, problems and HTML/PDF: en or zh-CN (default: EVALBOARD_LANG, else en); "
        "JSON keys stay English",
    )
    p.add_argument(
        "--max-rows",
        type=_positive,
        default=None,
        metavar="N",
        help="refuse files with more data rows than this (default: $EVALBOARD_MAX_ROWS, else 5000000); "
        "Parquet is checked from its metadata before loading. Larger data: --engine duckdb",
    )
    p.add_argument(
        "--max-columns",
        type=_positive,
        default=None,
        metavar="N",
        help="refuse files with more columns than this, checked before parsing (default: $EVALBOARD_MAX_COLUMNS, else 2000)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m board", description="evalboard: decide whether to ship a model, in money.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    v = sub.add_parser("validate", help="check a predictions file and print its summary or every problem")
    _add_data_args(v)
    e = sub.add_parser("evaluate", help="compute the board and write JSON (and HTML/PDF)")
    _add_data_args(e)
    e.add_argument("--value-table", type=Path, default=None, help="JSON with tp, fp, fn, tn (and unit, confidence, prevalence)")
    e.add_argument(
        "--table",
        default=None,
        metavar="NAME",
        help="price with the store's value table NAME: its version in force (else its open draft, marked not approved)",
    )
    for cell in ("tp", "fp", "fn", "tn"):
        e.add_argument(f"--{cell}", type=float, default=None, help=f"value per {cell.upper()} event (gain +, cost −)")
    e.add_argument("--unit", default="")
    e.add_argument("--prevalence", type=float, default=None, help="production positive rate")
    e.add_argument("--threshold", action="append", type=_pair, default=[], metavar="NAME=T")
    e.add_argument("--n-resamples", type=int, default=1000)
    e.add_argument(
        "--method",
        choices=["percentile", "bca", "bayes"],
        default="percentile",
        help="interval method; bayes: Bayesian bootstrap with a Jeffreys prior on the outcome cells (keeps its level on few positives)",
    )
    e.add_argument(
        "--scheme",
        choices=["rows", "stratified", "cluster"],
        default=None,
        help="bootstrap scheme (default: cluster when --group is given — repeat customers are not independent — else rows)",
    )
    e.add_argument("--strata", default=None, metavar="COL", help="segment column for --scheme stratified")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument(
        "--json",
        type=Path,
        default=None,
        metavar="OUT.json",
        help="write the JSON here and print a plain summary instead (default: the JSON on stdout, no summary)",
    )
    e.add_argument(
        "--display",
        choices=["value", "loss"],
        default="value",
        help="show amounts in the summary and the HTML/PDF as expected value (gains positive) or expected loss "
        "(positive = money lost); the JSON always holds expected value",
    )
    e.add_argument("--html", type=Path, default=None, metavar="OUT.html")
    e.add_argument("--pdf", type=Path, default=None, metavar="OUT.pdf")
    e.add_argument(
        "--engine",
        choices=["pandas", "duckdb", "spark"],
        default="pandas",
        help="pandas: load the file (fits in memory); duckdb: aggregate Parquet files/globs larger than "
        "memory; spark: aggregate Parquet or a table name on a Spark cluster",
    )
    e.add_argument(
        "--memory-limit",
        default=None,
        metavar="SIZE",
        help="duckdb: memory limit such as 4GB; past it DuckDB spills to a temporary folder on disk",
    )
    e.add_argument(
        "--resolution",
        default="auto",
        metavar="R",
        help="score grid of the duckdb/spark aggregate: auto (exact up to 20000 distinct scores, else "
        "1e-4), none (exact) or a number",
    )
    e.add_argument(
        "--window",
        choices=["day", "week"],
        default=None,
        help="add value_over_time to the JSON: EV per decision per day or week (needs --time)",
    )
    e.add_argument(
        "--label-known",
        default=None,
        metavar="COL",
        help="column saying whether a row's label has arrived (true/false, 1/0, yes/no; empty = not yet); "
        "the board uses labelled rows, value_over_time estimates the others",
    )
    e.add_argument(
        "--labels-complete-until",
        default=None,
        metavar="DATE",
        help="labels have arrived for rows up to this day (by --time); later rows are estimated",
    )
    e.add_argument(
        "--shadow",
        type=Path,
        default=None,
        metavar="FILE",
        help="held-out shadow set (same label and score columns): adds shadow_anchor, the gold-standard value "
        "and its ratio to the daily values (needs --window)",
    )
    e.add_argument("--shadow-name", default=None, metavar="NAME", help="the shadow set's name, e.g. 2026-Q3")
    e.add_argument("--shadow-date", default=None, metavar="DATE", help="when the shadow set was drawn (flags it after a quarter)")
    e.add_argument("--rescale", action="store_true", help="multiply value_over_time's EVs by the shadow factor")
    u = sub.add_parser("users", help="manage accounts (admins): add, list, disable, reset-password")
    usub = u.add_subparsers(dest="users_command", required=True, parser_class=_Parser)
    ua = usub.add_parser("add", help="add an account (the password is asked for, or read from --password-stdin)")
    ua.add_argument("username")
    ua.add_argument("--role", required=True, choices=["viewer", "analyst", "business", "risk", "model_owner", "admin"])
    usub.add_parser("list", help="list accounts (never their passwords or hashes)")
    ud = usub.add_parser("disable", help="disable an account (--enable turns it back on)")
    ud.add_argument("username")
    ud.add_argument("--enable", action="store_true")
    ur = usub.add_parser("reset-password", help="set a new password (asked for, or --password-stdin)")
    ur.add_argument("username")
    for p in (ua, ur):
        p.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    t = sub.add_parser("tables", help="value tables as code: list, show, export, import (import makes a draft)")
    tsub = t.add_subparsers(dest="tables_command", required=True, parser_class=_Parser)
    tsub.add_parser("list", help="every value table: name, version in force, open draft, archived")
    for verb, what in (("show", "print a table's current amounts and versions"), ("export", "print its amounts as JSON")):
        tp = tsub.add_parser(verb, help=what)
        tp.add_argument("name")
    ti = tsub.add_parser("import", help="save a JSON table as the open draft (never an approved version)")
    ti.add_argument("file", type=Path)
    ti.add_argument("--name", help="the table to save it to (default: the JSON's name)")
    ti.add_argument("--reason", default="imported with python -m board tables import")
    return parser


def _current_amounts(store, name: str) -> tuple[dict, str]:
    """(amounts, version label) of the version in force of ``name``, else its open draft."""
    from board.access import governance

    v = governance.current_version(store, name)
    if v is None:
        raise InputError(f"no value table named {name!r}; `python -m board tables list` shows them.")
    return v.amounts, (f"{v.label} (approved)" if v.status == "approved" else f"draft r{v.row_version} (not approved)")


def cmd_tables(args) -> int:
    """Value tables as code on the store of EVALBOARD_DB_URL / EVALBOARD_DATA_DIR: ``import``
    checks the JSON as the editor does (``ValueTable.from_dict``) and saves it as the open draft,
    audited as "cli" — signing it stays a person's act in the app."""
    from board.access import auth, governance
    from board.store import Store
    from evalcore import ValueTable

    with Store() as store:
        if args.tables_command == "list":
            for info in store.list_value_table_infos():
                approved = store.latest_approved_version(info.name)
                draft = store.get_value_table_draft(info.name)
                print(
                    f"{info.name}\t{approved.label + ' (approved)' if approved else 'no approved version'}\t"
                    f"{'draft r' + str(draft.row_version) if draft else 'no draft'}\t{'archived' if info.archived else 'in use'}"
                )
        elif args.tables_command in ("show", "export"):
            amounts, label = _current_amounts(store, args.name)
            table = ValueTable.from_dict(amounts)
            if args.tables_command == "export":
                print(json.dumps({**table.to_dict(), "name": args.name}, indent=2, ensure_ascii=False))
            else:
                print(f"{args.name}: {label}")
                for cell, v in table.effective().items():
                    print(f"  {cell.upper()}\t{getattr(table, cell):g} {table.unit}\t(effective {v:g})")
                for v in store.list_value_table_versions(args.name):
                    print(f"  version {v.label}\t{v.status}\t{v.updated_at:%Y-%m-%d}")
        else:
            try:
                d = json.loads(args.file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as err:
                raise InputError(f"{args.file}: cannot read JSON ({err}).") from None
            if not isinstance(d, dict):
                raise InputError(f"{args.file}: expected a JSON object with tp, fp, fn, tn.")
            name = (args.name or d.get("name") or "").strip()
            if not name:
                raise InputError(f"{args.file}: the JSON has no name; give --name.")
            table = ValueTable.from_dict({**d, "name": name})  # the editor's checks: every problem at once
            actor = auth.User(username="cli", role="admin")
            if not store.list_value_table_versions(name):
                rec = governance.create_table(store, actor, name, table.to_dict(), reason=args.reason)
            else:
                rec = governance.save_draft(store, actor, name, table.to_dict(), expected_row_version=None, reason=args.reason)
            print(f"{name}: saved as draft r{rec.row_version} (not approved; propose and sign it in the app)")
    return 0


def _read_password(args) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    import getpass

    first = getpass.getpass("New password: ")
    if getpass.getpass("Repeat it: ") != first:
        raise InputError("the two passwords differ; nothing was changed.")
    return first


def cmd_users(args) -> int:
    """Account management on the store of EVALBOARD_DB_URL / EVALBOARD_DATA_DIR, acting as the local
    operator (whoever can run this command can already read the database), audited as "cli"."""
    from board.access import auth, governance
    from board.store import NotFoundError, Store

    actor = auth.User(username="cli", role="admin")
    with Store() as store:
        try:
            if args.users_command == "add":
                rec = governance.add_user(store, actor, args.username, _read_password(args), args.role)
                print(f"added {rec.username} ({rec.role})")
            elif args.users_command == "list":
                for rec in store.list_users():
                    print(
                        f"{rec.username}\t{rec.role}\t{'active' if rec.active else 'disabled'}\tcreated {rec.created_at:%Y-%m-%d}"
                    )
            elif args.users_command == "disable":
                rec = governance.disable_user(store, actor, args.username, active=args.enable)
                print(f"{rec.username} is {'active' if rec.active else 'disabled'}")
            else:
                governance.reset_password(store, actor, args.username, _read_password(args))
                print(f"password of {args.username} reset")
        except NotFoundError as err:
            raise InputError(str(err)) from None
    return 0


def _mapping(args):
    from evalcore.data import ColumnMapping

    scores = dict(args.score)
    problems = []
    if len(scores) != len(args.score):
        problems.append("two --score options use the same model name; give each model its own name.")
    kinds = dict(args.score_kind)
    for name in kinds:
        if name not in scores:
            problems.append(f"--score-kind names model {name!r}, which has no --score.")
    if problems:
        raise InputError("\n".join(problems))
    return ColumnMapping(
        label=args.label,
        scores=scores,
        score_kinds=kinds,
        positive=args.positive,
        segments=tuple(args.segment),
        time=args.time,
        group=args.group,
        features=tuple(args.feature),
        weight=args.weight,
        drop_missing_labels=args.drop_missing_labels,
        label_known=getattr(args, "label_known", None),
        labels_complete_until=getattr(args, "labels_complete_until", None),
    )


def _load(args):
    path: Path = args.predictions
    if not path.is_file():
        raise InputError(f"--predictions {path}: no such file.")
    from board.services.limits import upload_limits

    given = {k: getattr(args, k) for k in ("max_rows", "max_columns") if getattr(args, k) is not None}
    limits = {**(upload_limits() if len(given) < 2 else {}), **given}  # the options win over the environment
    from evalcore.data import read_table, validate

    raw = path.read_bytes()
    late = getattr(args, "label_known", None) or getattr(args, "labels_complete_until", None)
    frame = read_table(raw, path.name, max_bytes=args.max_mb * 2**20, columns=None if late else _named_columns(args), **limits)
    if late:
        return _load_late_labels(args, frame)
    return validate(frame, _mapping(args))


def _named_columns(args) -> list:
    """The columns the options name: the only ones read (issue 18: converting the rest of a wide
    file costs time and memory for nothing)."""
    named = [args.label, *(col for _, col in args.score), *args.segment, *args.feature]
    return [c for c in named + [args.time, args.group, args.weight] if c]


def _load_late_labels(args, frame):
    """The labelled rows (the board's) and, for value over time, every row with a flag saying
    whose label has arrived (``args.over_time_rows``): :func:`evalcore.data.late_labels`, as the app."""
    from evalcore.data import late_labels

    late = late_labels(frame, _mapping(args))
    args.over_time_rows = (late.every, late.known)
    return late.labelled


def _table(args):
    """The value table of ``evaluate``; sets ``args.table_info`` (name, version, approved) for the JSON."""
    from evalcore import ValueTable

    cells = {c: getattr(args, c) for c in ("tp", "fp", "fn", "tn")}
    given = [o for o, v in (("--table", args.table), ("--value-table", args.value_table)) if v is not None]
    if any(v is not None for v in cells.values()):
        given.append("--tp/--fp/--fn/--tn")
    if len(given) > 1:
        raise InputError(f"give one of --table, --value-table or --tp/--fp/--fn/--tn, not {' and '.join(given)}.")
    if args.table is not None:
        from board.store import Store

        with Store() as store:
            amounts, version = _current_amounts(store, args.table)
        table = ValueTable.from_dict(amounts)
        args.table_info = {"name": table.name, "version": version, "approved": version.endswith("(approved)")}
        return table
    if args.value_table is not None:
        try:
            d = json.loads(args.value_table.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise InputError(f"--value-table {args.value_table}: cannot read JSON ({err}).") from None
        if not isinstance(d, dict):
            raise InputError(f"--value-table {args.value_table}: expected a JSON object with tp, fp, fn, tn.")
        table = ValueTable.from_dict(d)
        args.table_info = {"name": table.name, "version": f"file {args.value_table.name}", "approved": False}
        return table
    missing = [c for c, v in cells.items() if v is None]
    if missing:
        raise InputError(
            "the value table needs --value-table FILE or all of --tp --fp --fn --tn; missing: "
            + ", ".join(f"--{c}" for c in missing)
            + "."
        )
    table = ValueTable(**cells, unit=args.unit, prevalence=args.prevalence)
    args.table_info = {"name": table.name, "version": "command-line amounts", "approved": False}
    return table


def cmd_validate(args) -> int:
    preds = _load(args)
    print(json.dumps({"valid": True, **preds.summary()}, indent=2, ensure_ascii=False))
    return 0


def _evaluate_engine(args, table, config):
    """--engine duckdb|spark: aggregate where the data lives, evaluate the aggregate."""
    from board.engines import Query, aggregate_source
    from evalcore.aggregate import evaluate_aggregate

    r = args.resolution.strip().lower()
    try:
        resolution = None if r in ("none", "exact") else r if r == "auto" else float(r)
    except ValueError:
        raise InputError(f"--resolution {args.resolution!r}: use auto, none or a number.") from None
    m = _mapping(args)
    query = Query(
        label=m.label,
        scores=dict(m.scores),
        score_kinds=dict(m.score_kinds),
        positive=m.positive,
        segments=tuple(m.segments),
        group=m.group,
        weight=m.weight,
        time=m.time,
        features=tuple(m.features),
    )
    from evalcore.drift import DriftConfig

    agg = aggregate_source(
        str(args.predictions),
        query,
        engine=args.engine,
        resolution=resolution,
        thresholds=config.thresholds,
        scheme=config.scheme,
        strata_column=config.strata_column,
        drift=DriftConfig.from_dict(config.drift) if config.drift else None,
        memory_limit=args.memory_limit,
    )
    return evaluate_aggregate(agg, table, config)


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3


def _keep_freed_memory() -> bool:
    """Let glibc's malloc reuse the memory the board frees instead of handing it back to the kernel.

    By default every array above 128 kB–32 MB (a column of a million rows is 8 MB) gets pages of
    its own from the kernel and returns them when freed, so the next array of that size faults
    them in again: at 1M rows that is 2–7 s of kernel time out of 9–15 s (issue 18). Arrays up
    to 32 MB now come from the heap, and freed heap stays with the process (a board run is
    short-lived; its peak memory grows by about 150 MB at 1M rows). Only for this
    process, only on glibc; False (nothing changed) elsewhere."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (macOS, musl): the default allocator, as before
        return False
    return all(
        mallopt(param, value) == 1
        for param, value in ((_M_MMAP_THRESHOLD, 32 * 2**20), (_M_TRIM_THRESHOLD, 4 * 2**30), (_M_TOP_PAD, 256 * 2**20))
    )


def _scheme(args) -> str:
    """The bootstrap scheme: as given, else by customer when a group column is named, else rows."""
    return args.scheme or ("cluster" if args.group else "rows")


def cmd_evaluate(args) -> int:
    # both schemes: the cluster scheme's 1M-row peak is 1.27–1.30 GB so (1.20–1.23 GB without)
    _keep_freed_memory()
    if getattr(args, "engine", "pandas") != "pandas":
        return _cmd_evaluate(args, _table(args), engine=True)
    return _cmd_evaluate(args, None, engine=False)


def _warm_imports():
    """Start importing what the board needs (evalcore's board, SciPy's stats for the drift tests,
    scikit-learn for the calibration slope: about a second) on the other core while this thread
    reads and checks the file — pyarrow's CSV parser releases the GIL, so the two overlap. numpy,
    pandas and evalcore.data are imported here first, so no module is imported by both threads at
    once; join it (:func:`_imports_ready`) before importing any other evalcore module."""
    import threading

    global _WARM

    import evalcore.data  # noqa: F401 (numpy, pandas: loaded before the thread starts)

    def run():
        try:
            import scipy.stats  # noqa: F401
            import sklearn.linear_model  # noqa: F401

            import evalcore.board  # noqa: F401
            import evalcore.calibration  # noqa: F401
        except Exception:  # noqa: BLE001 - the main thread imports them again and reports any error
            pass

    _WARM = threading.Thread(target=run, name="evalboard-imports", daemon=True)
    _WARM.start()


_WARM = None  # the thread of _warm_imports, while it may still run


def _imports_ready() -> None:
    global _WARM
    if _WARM is not None:
        _WARM.join()
        _WARM = None


def _cmd_evaluate(args, engine_table, *, engine: bool) -> int:
    _warm_imports()
    problems = []
    preds = table = None
    for step in () if engine else (_load, _table):
        try:
            out = step(args)
        except InputError as err:
            problems += err.problems
            continue
        if step is _load:
            preds = out
        else:
            table = out
    _imports_ready()
    from evalcore.board import BoardConfig, evaluate

    if problems:
        raise InputError(problems)
    thresholds = {}
    for name, t in args.threshold:
        try:
            thresholds[name] = float(t)
        except ValueError:
            raise InputError(f"--threshold {name}={t}: {t!r} is not a number.") from None
    config = BoardConfig(
        thresholds=thresholds,
        n_resamples=args.n_resamples,
        method=args.method,
        seed=args.seed,
        scheme=_scheme(args),
        strata_column=args.strata,
    )
    over = _over_time_args(args)
    if engine:
        result = _evaluate_engine(args, engine_table, config)
    else:
        result = evaluate(preds, table, config)
    out = result.to_dict()
    # which table priced the board, and whether it is a signed-off version (issue 16 item 1); only
    # the store's approved versions are: a file or command-line amounts never are
    info = getattr(args, "table_info", None) or {}
    out["value_table"].update({k: v for k, v in info.items() if k != "name"})
    if over:
        out.update(_value_over_time(args, preds, table or engine_table, config, result))
    locale = _locale(args)
    if locale != "en":  # the text fields in the reader's language; keys and numbers unchanged
        from board.words.clauses import action_text, clause_text

        if result.action is not None:
            out["action"] = action_text(result.action, locale, result)
            detail = out.get("action_detail") or {}
            detail["text"] = out["action"]
            for c, d in zip(result.action.clauses, detail.get("clauses", []), strict=False):
                d["text"] = clause_text(c, locale, result)
    text = json.dumps(out, indent=2, ensure_ascii=False, allow_nan=False)
    if args.json:
        from board.words.i18n import t

        args.json.write_text(text + "\n", encoding="utf-8")
        print(text_summary(result, display=args.display, locale=locale))
        print(t("The board (raw numbers) is in {path}.", locale, path=args.json))
    else:
        print(text)
    if args.html or args.pdf:
        from board import export
        from board.words.lens import Lens

        meta = dict(
            dataset_name=args.predictions.name,
            table_version=_version_words(args),
            lens=Lens(args.display, locale),
            locale=locale,
        )
        if args.html:
            export.write_html(result, args.html, **meta)
        if args.pdf:
            try:
                export.write_pdf(result, args.pdf, **meta)
            except export.ExportError as err:
                raise InputError(str(err)) from None
    return 0


def _version_words(args) -> str:
    """The version label the exports show: "(not approved)" on anything but an approved version,
    so the HTML/PDF carry the DRAFT mark."""
    info = getattr(args, "table_info", None) or {"version": "CLI amounts", "approved": False}
    if info["approved"] or "not approved" in info["version"]:
        return info["version"]
    return f"{info['version']} (not approved)"


def _over_time_args(args) -> bool:
    """Whether value_over_time is asked for (--window or a label-known rule); needs --time."""
    late = bool(getattr(args, "label_known", None) or getattr(args, "labels_complete_until", None))
    extra = bool(getattr(args, "shadow", None) or getattr(args, "rescale", False))
    if not (getattr(args, "window", None) or late or extra):
        return False
    problems = []
    if not args.time:
        problems.append("--window, --label-known and --labels-complete-until need --time COL.")
    if args.label_known and args.labels_complete_until:
        problems.append("give either --label-known or --labels-complete-until, not both.")
    if (getattr(args, "shadow", None) or getattr(args, "rescale", False)) and not getattr(args, "window", None):
        problems.append("--shadow and --rescale need --window day|week (the daily values they anchor).")
    if getattr(args, "rescale", False) and not getattr(args, "shadow", None):
        problems.append("--rescale needs --shadow FILE.")
    if late and getattr(args, "engine", "pandas") != "pandas":
        problems.append("labels that arrive late (--label-known, --labels-complete-until) need --engine pandas for now.")
    if problems:
        raise InputError("\n".join(problems))
    return True


def _value_over_time(args, preds, table, config, result) -> dict:
    """``value_over_time`` (the windows) and ``value_over_time_info`` for the JSON."""
    from evalcore.over_time import value_over_time_of

    light = result.drift.lights["calibration"].color if result.drift is not None else None
    thresholds = {name: m.threshold for name, m in result.models.items()}
    if getattr(args, "engine", "pandas") != "pandas":
        from board.engines import Query
        from board.engines.aggregation import over_time_source

        m = _mapping(args)
        query = Query(
            label=m.label,
            scores=dict(m.scores),
            positive=m.positive,
            segments=tuple(m.segments),
            group=m.group,
            weight=m.weight,
            time=m.time,
        )
        tables = over_time_source(
            str(args.predictions),
            query,
            engine=args.engine,
            thresholds=thresholds,
            score_kinds={name: mr.score_kind for name, mr in result.models.items()},
            resolution=(result.aggregate or {}).get("resolution"),
            strata_column=config.strata_column if config.scheme == "stratified" else None,
            groups=config.scheme == "cluster",
            memory_limit=args.memory_limit,
        )
    else:
        from evalcore.over_time import time_tables

        rows, known = getattr(args, "over_time_rows", (preds, None))
        tables = time_tables(
            rows,
            thresholds=thresholds,
            label_known=known,
            strata_column=config.strata_column if config.scheme == "stratified" else None,
            groups=config.scheme == "cluster",
        )
    vot = value_over_time_of(tables, table, config, window=args.window or "week", calibration_light=light)
    out = {"value_over_time": vot.to_dict(), "value_over_time_info": vot.info()}
    if getattr(args, "shadow", None) is not None:
        out.update(_shadow(args, vot, table, config, result, out))
    return out


def _shadow(args, vot, table, config, result, out) -> dict:
    """``shadow_anchor`` per model; with --rescale the windows' EVs (and bands) multiplied by it."""
    import numpy as np
    import pandas as pd

    from evalcore.data import ColumnMapping, read_table, validate
    from evalcore.shadow import daily_values, shadow_anchor

    path: Path = args.shadow
    if not path.is_file():
        raise InputError(f"--shadow {path}: no such file.")
    frame = read_table(path.read_bytes(), path.name, max_bytes=args.max_mb * 2**20)
    m = _mapping(args)
    has_time = m.time in frame.columns
    shadow = validate(
        frame,
        ColumnMapping(
            label=m.label,
            scores=dict(m.scores),
            score_kinds={k: result.models[k].score_kind for k in m.scores},
            positive=m.positive,
            time=m.time if has_time else None,
            weight=m.weight if m.weight in frame.columns else None,
        ),
    )
    start = end = None
    if has_time:  # the overlapping period: the days the shadow set covers
        days = pd.DatetimeIndex(shadow.time).normalize()
        start, end = days.min(), days.max() + pd.Timedelta(days=1)
    last_day = max(pd.Timestamp(w["end"]) for w in out["value_over_time"]) - pd.Timedelta(days=1)
    name = args.shadow_name or path.stem
    anchors = {}
    for i, (model, mr) in enumerate(result.models.items()):
        ev, n, se = daily_values(vot, model, start, end)
        anchors[model] = shadow_anchor(
            shadow.y_true,
            shadow.scores[model],
            table,
            threshold=mr.threshold,
            daily_ev=ev,
            daily_n=n,
            daily_se=se,
            sample_weight=shadow.sample_weight,
            n_resamples=max(config.n_resamples, 200),
            level=config.level,
            rng=np.random.SeedSequence([int(config.seed), 11, i]),
            label=name,
            marked_on=args.shadow_date,
            as_of=last_day if args.shadow_date else None,
        )
    res = {"shadow_anchor": {k: a.to_dict() for k, a in anchors.items()}}
    if args.rescale:
        scaled = {}
        for model, a in anchors.items():
            d = a.to_dict()
            if d["factor"] is None:
                scaled[model] = {"factor": None, "statement": f"not scaled: {a.undefined.get('factor', '')}"}
                continue
            for w in out["value_over_time"]:
                mw = w["models"][model]
                mw["ev"] = None if mw["ev"] is None else mw["ev"] * a.factor
                mw["ev_ci"] = [None if v is None else v * a.factor for v in mw["ev_ci"]]
            lo, hi = d["factor_ci"]
            ci = f" (CI {lo:.2f}–{hi:.2f})" if lo is not None and hi is not None else ""
            scaled[model] = {
                "factor": d["factor"],
                "factor_ci": d["factor_ci"],
                "statement": f"scaled ×{a.factor:.2f} by the shadow set of {name}{ci}",
            }
        out["value_over_time_info"]["scaled"] = scaled
        out["value_over_time_info"]["notes"].append("diff and diff_ci are not scaled (each model has its own factor)")
    return res


def text_summary(result, *, display: str = "value", locale: str = "en") -> str:
    """The board in a few plain lines for a person at a terminal: the verdict and its reasons, then
    per model the value per decision at its threshold with the interval, the best threshold and
    AUC, the comparison and the drift lights. Every number goes through :mod:`board.words.fmt`
    (the JSON keeps the raw numbers)."""
    from board.words import fmt
    from board.words.i18n import t
    from board.words.lens import Lens
    from board.words.verdict import plain_verdict
    from board.words.vocab import word

    L = locale
    lens = Lens(display, L)
    unit = result.table.unit
    level = fmt.share(result.config.level, 0)
    verdict = plain_verdict(result, lens=lens, locale=L)

    def money(x):
        return fmt.money(x, unit, signed=True, locale=L)

    head = t("{word} {at}", L, word=verdict.word, at=verdict.at) if verdict.at else verdict.word
    lines = [t("{verdict}: {sentence}", L, verdict=head, sentence=verdict.sentence)]
    lines += [t("  - because {reason}", L, reason=b.text) for b in verdict.because]
    if verdict.caveat:
        lines.append(f"  ! {verdict.caveat}")
    table = t("value table “{name}”", L, name=result.table.name) if result.table.name else t("the value table", L)
    share = fmt.share(result.n_pos / result.n if result.n else float("nan"), 2)
    lines.append(
        t(
            "Data: {n} decisions, {pos} positive ({share}); priced with {table} in {unit}.",
            L,
            n=fmt.count(result.n_rows),
            pos=fmt.count(result.n_pos),
            share=share,
            table=table,
            unit=unit,
        )
        if unit
        else t(
            "Data: {n} decisions, {pos} positive ({share}); priced with {table}.",
            L,
            n=fmt.count(result.n_rows),
            pos=fmt.count(result.n_pos),
            share=share,
            table=table,
        )
    )
    for name, m in result.models.items():
        ci = m.ev_ci
        lo, hi = lens.interval(ci.low, ci.high) if ci is not None else (None, None)
        interval = (
            t(" ({level} interval {lo} to {hi})", L, level=level, lo=money(lo), hi=money(hi))
            if ci is not None and not (fmt.is_undefined(lo) or fmt.is_undefined(hi))
            else ""
        )
        lines.append(
            t(
                "{model} at threshold {t}: {ev} {quantity}{interval}; best threshold {best} ({ev_best} {quantity}); AUC {auc}.",
                L,
                model=name,
                t=fmt.score(m.threshold),
                ev=money(lens.amount(m.ev)),
                quantity=lens.quantity,
                interval=interval,
                best=fmt.score(m.curve.t_opt),
                ev_best=money(lens.amount(m.curve.ev_opt)),
                auc=fmt.number(m.auc),
            )
        )
    c = result.comparison
    if c is not None:
        d = c.diff
        lo, hi = lens.interval(d.low, d.high)
        lines.append(
            t(
                "{b} − {a}: {diff} {quantity} ({level} interval {lo} to {hi}); {b} better in {p} of {n} resamples.",
                L,
                a=c.a,
                b=c.b,
                diff=money(lens.amount(d.estimate)),
                quantity=lens.quantity,
                level=level,
                lo=money(lo),
                hi=money(hi),
                p=fmt.probability(c.p_b_better),
                n=fmt.count(d.n_resamples),
            )
        )
    if result.drift is not None:
        lights = t(", ", L).join(
            t("{family} {color}", L, family=word(family, L), color=word(light.color, L))
            for family, light in result.drift.lights.items()
        )
        lines.append(t("Drift lights: {lights}.", L, lights=lights))
    return "\n".join(lines)


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return {"validate": cmd_validate, "evaluate": cmd_evaluate, "users": cmd_users, "tables": cmd_tables}[args.command](args)
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
    except InputError as err:
        from board.words.i18n import tn
        from board.words.problems import problem_line

        locale = _locale(args)
        n = len(err.problems)
        print(tn("{n} problem found:", "{n} problems found:", n, locale), file=sys.stderr)
        for p in err.problems:
            print(f"- {problem_line(p, locale)}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
