"""Fixtures of the issue-17 security regression suite: a fresh database per test on SQLite and,
when EVALBOARD_TEST_PG_URL is set (required in CI), PostgreSQL."""

from __future__ import annotations

import pytest

from tests.board.test_governance import fresh_db_url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path, monkeypatch):
    """An empty database URL (migrated by the first Store opened on it); bcrypt at its cheapest."""
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    for url in fresh_db_url(request.param, tmp_path):
        yield url


@pytest.fixture
def data_dir(tmp_path):
    return str(tmp_path / "data")
