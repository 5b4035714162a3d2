"""The server's Streamlit settings (.streamlit/config.toml) that issue 18 relies on, and what they
assume of the pages: no magic (every page writes through st.* calls), no gc.collect() after every run."""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_magic_and_the_collection_after_every_run_are_off():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"] == {"magicEnabled": False, "postScriptGC": False}
    assert config["client"]["showErrorDetails"] == "none"  # never a traceback on a shared screen


def _bare_expressions(path: Path) -> list[str]:
    """Statements that Streamlit's magic would have written to the page: an expression on its own
    that is not a call (a call's result is never written) nor a docstring."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for parent in ast.walk(tree):
        body = getattr(parent, "body", None)
        if not isinstance(body, list):
            continue
        for i, node in enumerate(body):
            if not isinstance(node, ast.Expr) or isinstance(node.value, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)):
                continue
            docstring = i == 0 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            if not docstring:
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:60]}")
    return found


def test_no_page_relies_on_magic():
    """With magic off, a bare expression would silently show nothing: there is none."""
    scripts = [ROOT / "app.py", ROOT / "serve.py", *sorted((ROOT / "views").glob("*.py"))]
    assert len(scripts) > 10
    assert [e for p in scripts for e in _bare_expressions(p)] == []


def test_the_check_finds_a_bare_expression(tmp_path):
    page = tmp_path / "page.py"
    page.write_text('"""doc"""\nimport streamlit as st\nx = 1\nx\nst.write(x)\n"a note"\n')
    assert _bare_expressions(page) == ["page.py:4: x", "page.py:6: 'a note'"]
