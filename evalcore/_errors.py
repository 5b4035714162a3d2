"""The one error type of evalcore: invalid input, with every problem listed."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """One thing wrong with an input, said so a user can fix it.

    Attributes
    ----------
    code : str
        Stable machine-readable identifier, e.g. ``"label_one_class"``.
    message : str
        What is wrong, naming the column/parameter, the rule and what arrived.
    fix : str
        What the user should do about it.
    column : str or None
        The column (or parameter) concerned, if any.
    rows : tuple of int
        A few example row numbers (1-based, as in a spreadsheet with a header row
        counted as row 1, so data rows start at 2), never the whole list.
    n_rows : int
        How many rows are affected in total (0 when the problem is not row-wise).
    """

    code: str
    message: str
    fix: str = ""
    column: str | None = None
    rows: tuple[int, ...] = ()
    n_rows: int = 0

    def __str__(self) -> str:
        text = self.message
        if self.rows:
            shown = ", ".join(str(r) for r in self.rows)
            more = f" (and {self.n_rows - len(self.rows)} more)" if self.n_rows > len(self.rows) else ""
            text += f" Rows: {shown}{more}."
        if self.fix:
            text += f" Fix: {self.fix}"
        return text

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "fix": self.fix,
            "column": self.column,
            "rows": list(self.rows),
            "n_rows": self.n_rows,
        }


class InputError(ValueError):
    """Invalid input. ``problems`` lists every problem found, not only the first.

    ``str(err)`` joins all problems, one per line, so a bare ``raise`` still
    tells the whole story.
    """

    def __init__(self, problems: "list[Problem] | Problem | str"):
        if isinstance(problems, str):
            problems = [Problem(code="invalid", message=problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(slots=True)
class ProblemList:
    """Collects problems during validation, then raises them all at once."""

    problems: list[Problem] = field(default_factory=list)

    def add(self, code: str, message: str, fix: str = "", *, column=None, rows=(), n_rows=0) -> None:
        self.problems.append(
            Problem(code=code, message=message, fix=fix, column=column, rows=tuple(int(r) for r in rows), n_rows=int(n_rows))
        )

    def raise_if_any(self) -> None:
        if self.problems:
            raise InputError(self.problems)

    def __bool__(self) -> bool:
        return bool(self.problems)
