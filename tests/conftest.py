"""Test setup: Qt renders offscreen, and no test touches the real user's config or data."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path, monkeypatch):
    """Point the user config and data directories at a per-test folder."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("FABRIC_DESIGNER_DATA_DIR", str(tmp_path / "data" / "fabric-designer"))
    yield
