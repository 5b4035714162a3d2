"""An input problem (``evalcore.Problem``: a code, an English message and fix, the column and
rows) in the reader's language.

evalcore says each problem once, in English, with its stable ``code``; this module knows the
English templates of the messages and fixes of each code (:mod:`board.words.patterns`) and says
them again in the reader's language with the same parameters (column names, counts, values). A
problem whose words no template matches keeps its English message and fix (the fallback), so
nothing is ever dropped or left blank. Pure (no Streamlit).
"""

from __future__ import annotations

from board.words.i18n import N_, is_chinese, t
from board.words.patterns import Templates

__all__ = ["problem_line", "problem_text"]

_MESSAGES = Templates(
    [
        # the file itself
        N_("{name} has more than one column named {columns}; the columns cannot be told apart."),
        N_("{name} cannot be read as text: {what}."),
        N_(
            "{name}: the header has {width} fields ({delimiter}-separated) but {count} line(s) have a different "
            "number, first at line {line} ({n} fields)."
        ),
        N_("The table has more than one column named {columns}."),
        N_("The table has no rows."),
        N_("{name} is {size}; the upload limit is {limit}."),
        N_(
            "{name} is named like a Parquet file but does not start with the Parquet signature (PAR1), so it is not "
            "a Parquet file or it is damaged."
        ),
        N_("{name} looks like an Excel workbook (or a zip archive), not CSV or Parquet."),
        N_("{name} is gzip-compressed."),
        N_("{name} has {n} rows; the limit is {limit} rows."),
        N_("{name} has {n} columns; the limit is {limit} columns."),
        N_("{name} is a Parquet file without columns."),
        N_("{name} has the columns {columns} but no rows."),
        N_("{name} is empty (only whitespace)."),
        N_("{name} is empty."),
        N_("{name} has no content (only whitespace)."),
        N_("{name} has a header ({columns}) but no data rows."),
        N_("{name} starts like a Parquet file but cannot be read: {error}."),
        N_("{name} was read but its columns cannot be converted: {error}."),
        N_("The header line of {name} cannot be parsed: {error}."),
        N_("{name} cannot be parsed as {delimiter}-separated values: {error} (pyarrow said: {detail})."),
        N_("{name} cannot be parsed at line {line}: {why}."),
        # the column mapping
        N_("The {role} column {column} is not in the file. Available columns: {columns}."),
        N_("The label column {column} is not in the file. Available columns: {columns}."),
        N_("The label column must be a column name; got {value}."),
        N_("No score column is mapped; at least one model's score is needed."),
        N_("{n} score columns are mapped ({columns}); the board compares at most two models."),
        N_("Model {model} must name a score column; got {column}."),
        N_(
            "The column {column} is mapped as {roles}; a column can play only one of the roles label, score, time, "
            "weight and group (and is then neither segment nor feature)."
        ),
        N_("The column mapping has no 'label'."),
        N_("Unknown key(s) in the column mapping: {keys}."),
        # the label
        N_("Every label in column {column} is missing ({n} rows)."),
        N_("The label column {column} is empty in {n} of {total} rows; without a label these rows cannot be evaluated."),
        N_("The label column {column} must have exactly two distinct values; it has {n}: {values}."),
        N_(
            "The label column {column} has only one value, {value} (in all {n} labelled rows); evaluating a "
            "classifier needs both positives and negatives."
        ),
        N_(
            "The label column {column} has the values {values}; which one is the positive class (the event to act "
            "on, e.g. fraud, default, churn)?"
        ),
        N_("The positive label {value} is not a value of the label column {column}, whose values are {values}."),
        N_("Every {column} row ({value} is positive) has weight 0, so in the weighted data there is only one class."),
        # scores
        N_("The score column {column} (model {model}) holds {n} value(s) that are not numbers, e.g. {examples}."),
        N_("The score column {column} (model {model}) is missing (empty or NaN) in {n} row(s)."),
        N_("The score column {column} (model {model}) is infinite (inf or -inf) in {n} row(s)."),
        N_(
            "The score column {column} (model {model}) is declared a probability but {n} value(s) lie outside "
            "[0, 1] (range {low} to {high})."
        ),
        N_(
            "The score column {column} (model {model}) is declared a hard decision but {n} value(s) are neither 0 "
            "nor 1, e.g. {examples}."
        ),
        N_("The score kind of model {model} is {kind}; it must be one of {kinds}."),
        N_("A score kind is given for model {model}, which has no score column (models: {models})."),
        # weight, group, segments, time
        N_("The weight column {column} is 0 in every row, so nothing would count."),
        N_("The weight column {column} {what}; weights must be finite numbers >= 0."),
        N_("The group column {column} is empty in {n} row(s); every row needs a group id for the cluster bootstrap."),
        N_("The segment column {column} has {n} distinct values (e.g. {examples}); a segment may have at most {limit}."),
        N_("The time column {column} has {n} value(s) that cannot be read as dates ({how}), e.g. {examples}."),
        N_("The time column {column} is empty in {n} row(s); drift windows need a time for every row."),
        # the dataset form
        N_("Give the dataset a name."),
        N_("Choose the label column."),
        N_("Choose one or two score columns."),
        # the value table
        N_("Amount of {cell} must be a number; got {value}."),
        N_("Amount of {cell} must be finite; got {value}."),
        N_("Confidence of {cell} must be in (0, 1]; got {value}."),
        N_("Production prevalence must be in (0, 1) or empty; got {value}."),
        # a path on the server
        N_("Enter a path: a Parquet file, a glob or a folder."),
        N_("{path} resolves to {base}, outside the allowed roots ({roots})."),
        N_("{n} matched file(s) are not Parquet, e.g. {example}."),
        N_("DuckDB cannot read {path}: {error}"),
    ]
)

_FIXES = Templates(
    [
        N_("Rename or remove the duplicated columns so that every header is unique."),
        N_("Rename or remove the duplicated columns."),
        N_("Save the file as 'CSV UTF-8' (in Excel: File > Save As > CSV UTF-8) and upload it again."),
        N_("Make every line have as many fields as the header; quote fields that contain the delimiter."),
        N_("Upload a file with at least one data row."),
        N_("Upload a file with at least one data row below the header."),
        N_("Upload a file with data."),
        N_("Upload the file that holds the predictions (a header row and at least one data row)."),
        N_("Upload a smaller file (fewer rows or only the needed columns), or save it as Parquet, which is much smaller."),
        N_("Export the Parquet file again, or upload the data as CSV."),
        N_("In Excel use File > Save As > 'CSV UTF-8 (comma delimited)', then upload the .csv."),
        N_("Decompress it and upload the .csv inside."),
        N_(
            "Upload fewer rows (e.g. one period or a sample), or save it as Parquet on the server and register it as "
            "a path instead (Upload > Register a path, for large data: DuckDB aggregates it without loading the rows)."
        ),
        N_(
            "Keep only the columns the board needs (label, scores, segments, time, group, weight, features), or save "
            "it as Parquet on the server and register it as a path instead (Upload > Register a path, for large "
            "data: DuckDB aggregates it without loading the rows)."
        ),
        N_("The file is probably truncated or damaged; export it again (or upload a CSV)."),
        N_("Write the file with plain column types (numbers, text, dates)."),
        N_("Check the first line: column names separated by a comma, semicolon, tab or |."),
        N_("Open the file in a text editor and check the quoting and the number of fields per line."),
        N_("Check the quotes on that line (a field that contains the delimiter must be quoted)."),
        N_("Choose the {role} column among the file's columns, or add a column named {column}."),
        N_("Choose the label column among the file's columns."),
        N_("Choose the label column."),
        N_("Choose the column that holds model A's score (and optionally model B's)."),
        N_("Keep one or two score columns (model A and model B)."),
        N_("Choose a column for each model."),
        N_("Choose a different column for one of the roles of {column}."),
        N_("Choose the column that holds the outcome."),
        N_("Fill in the labels, or confirm dropping this row (dropped rows are counted and reported)."),
        N_("Fill in the labels, or confirm dropping these {n} rows (dropped rows are counted and reported)."),
        N_("Choose a binary outcome column, or recode the label to two values (e.g. 1 = positive, 0 = negative)."),
        N_("Upload a validation set that contains both classes."),
        N_("Pick the positive label value."),
        N_("Pick the positive label among these values."),
        N_("Check the weight column; both classes need some weight."),
        N_("Correct those cells so that every score is a number."),
        N_("Fill in the scores, or remove those rows from the file."),
        N_("Replace the infinite scores with finite numbers (e.g. clip them)."),
        N_("Declare the kind 'score' (thresholds stay in the score's own units), or rescale the scores to [0, 1]."),
        N_("Declare the kind 'score' or 'probability', or recode the decision to 0/1."),
        N_("Pick 'auto' to let the data decide."),
        N_("Use the same model names in scores and score_kinds."),
        N_("Choose the right weight column, or unmap it to weigh every row equally."),
        N_("Fix those weights (use 0 to exclude a row on purpose), or unmap the weight column."),
        N_("Fill in the group ids, or unmap the group column."),
        N_(
            "Use a categorical column (e.g. channel, region, new_user) or bin this one first; a numeric column can be "
            "mapped as a feature instead."
        ),
        N_(
            "Write every time in one form: a year (2015), a year-month (202401 or 2024-01) or a date (2025-01-31, "
            "2025-01-31 14:05:00, 20250131 or 2025年1月31日), between 1678 and 2261; or unmap the time column."
        ),
        N_("Fill in the missing times, or unmap the time column."),
        N_("Enter the money gained per event (a cost is negative)."),
        N_("Use 1 when the amount is known exactly, less when it is a rough estimate."),
        N_("Enter the share of positive cases in production, e.g. 0.02, or leave it empty."),
        N_("Allowed roots: {roots}."),
        N_("Put the files under {roots}, or ask an administrator to add a root to {env}."),
        N_("Check the spelling and that the files exist on the server (not on your computer)."),
        N_("Narrow the glob to *.parquet files."),
        N_("Check that every matched file is Parquet with the same columns."),
    ]
)

_VALUES = {
    "comma": N_("comma"),
    "semicolon": N_("semicolon"),
    "tab": N_("tab"),
    "pipe": N_("pipe"),
    "label": N_("label"),
    "time": N_("time"),
    "weight": N_("weight"),
    "group": N_("group"),
    "score": N_("score"),
}


def _value(name: str, value: str, locale: str) -> str:
    if name in ("delimiter", "role") and value in _VALUES:
        return t(_VALUES[value], locale)
    return value


_MESSAGES._values = _value
_FIXES._values = _value


def problem_text(problem, locale: str) -> tuple[str, str]:
    """(message, fix) of ``problem`` in ``locale``; English when no template matches."""
    if not is_chinese(locale):
        return problem.message, problem.fix
    return _MESSAGES.say(problem.message, locale), _FIXES.say(problem.fix, locale) if problem.fix else ""


def problem_line(problem, locale: str) -> str:
    """The whole problem on one line (as ``str(problem)``): message, example rows, fix."""
    if not is_chinese(locale):
        return str(problem)
    message, fix = problem_text(problem, locale)
    text = message
    if problem.rows:
        shown = ", ".join(str(r) for r in problem.rows)
        more = len(problem.rows) < problem.n_rows
        text += (
            t(" Rows: {rows} (and {n} more).", locale, rows=shown, n=problem.n_rows - len(problem.rows))
            if more
            else t(" Rows: {rows}.", locale, rows=shown)
        )
    if fix:
        text += t(" Fix: {fix}", locale, fix=fix)
    return text
