"""Test setup: Qt renders offscreen, and no test touches the real user's config or data."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from hypothesis import HealthCheck, settings

# Two depths of property testing. `make test` runs the "quick" profile: 40 examples where a
# property sets none, and tests that set their own count scale it by the same 40% through
# `tests.helpers.examples`. `make test-slow` (or HYPOTHESIS_PROFILE=thorough) runs every property
# at its full count, hypothesis's default 100 where none is set.
#
# Nothing a property asserts may depend on the wall clock: a busy machine (CI, a contributor's
# build beside the tests) makes generation slow and one example late, and neither is a failure.
# So every profile drops the per-example deadline and the `too_slow` health check, and
# `_properties_ignore_the_clock` refuses at collection a test whose own settings bring them back.
_CLOCK_FREE = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("quick", max_examples=40, **_CLOCK_FREE)
settings.register_profile("thorough", max_examples=100, **_CLOCK_FREE)
# CI replays the same examples on every run, so a red build is reproducible and a green one is
# not luck; a developer's run explores new examples each time.
for _depth in ("quick", "thorough"):
    settings.register_profile(f"{_depth}-ci", settings.get_profile(_depth), derandomize=True, database=None)
_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "quick")
if _PROFILE not in ("quick", "thorough"):
    raise pytest.UsageError(f"HYPOTHESIS_PROFILE={_PROFILE!r}: use quick or thorough")
settings.load_profile(f"{_PROFILE}-ci" if os.environ.get("CI") else _PROFILE)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The longest test files first (`_longest_files_first`); then, under `--dist loadgroup`,
    name each test's `xdist_group` in its node id, so that the group's tests run on one worker
    and share their module fixtures (a wheel, a campaign).

    pytest-xdist does this by setting `item._nodeid`, which pytest 9 no longer reads (the id is
    `item._id`); without this, every group is split across the workers and each worker builds
    the group's fixtures again. An id that already carries the suffix is left alone."""
    _longest_files_first(items)
    _properties_ignore_the_clock(items)
    if not getattr(config.option, "loadgroup", False):   # set on the workers of --dist loadgroup only
        return
    for item in items:
        groups = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                         for mark in item.iter_markers("xdist_group")})
        if not groups:
            continue
        suffix = "@" + "_".join(groups)
        if item.nodeid.endswith(suffix):
            continue
        if hasattr(item, "_id"):
            from _pytest.nodeid import NodeId

            item._id = NodeId.parse(item.nodeid + suffix)
        else:
            item._nodeid = item.nodeid + suffix


def _properties_ignore_the_clock(items) -> None:
    """A property whose own `@settings` lists health checks replaces the profile's list, and one
    that sets a deadline replaces None: under load either fails a test whose assertion holds.
    Refuse such a test by name at collection rather than let it fail on a busy machine."""
    for item in items:
        test = getattr(item, "obj", None)
        if not getattr(getattr(test, "hypothesis", None), "inner_test", None):
            continue
        chosen = test._hypothesis_internal_use_settings
        if HealthCheck.too_slow not in chosen.suppress_health_check or chosen.deadline is not None:
            raise pytest.UsageError(
                f"{item.nodeid}: its @settings must keep deadline=None and suppress "
                "HealthCheck.too_slow, as the profiles in tests/conftest.py do")


def _longest_files_first(items) -> None:
    """Order the run by tests/durations.json (written by tests/durations.py): the longest test
    files first, each file's tests kept together and in their order, so that a file's module
    fixtures are made once per worker and no long file starts last and leaves the other core idle
    at the end. Files the hint does not know (new ones) come after those it knows. Every worker
    collects the same order, as pytest-xdist requires."""
    from durations import load

    hint = load()
    if hint:
        items[:] = sorted(items, key=lambda item: -hint.get(item.nodeid.split("::", 1)[0], 0.0))


_APPLICATION = []


@pytest.fixture(autouse=True)
def _one_qapplication_first():
    """The test process's one Qt application is a QApplication, made before any test runs.
    A command run inside a test that draws without a window (`render`, the diagram exports)
    makes a QGuiApplication when none exists, and every widget test after it on the same worker
    would then abort the process."""
    if not _APPLICATION:
        from PySide6.QtWidgets import QApplication

        _APPLICATION.append(QApplication.instance() or QApplication(["pytest-qt-qapp"]))


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path, monkeypatch):
    """Point the user config and data directories at a per-test folder."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("FABRIC_DESIGNER_DATA_DIR", str(tmp_path / "data" / "fabric-designer"))
    monkeypatch.setenv("FABRIC_DESIGNER_CONFIG_DIR", str(tmp_path / "config" / "fabric-designer"))
    yield


@pytest.fixture(scope="session")
def qapp(qapp):
    """pytest-qt's application, collecting garbage on the UI thread only, as the window does."""
    from designer.ui.services.collector import install_collector

    install_collector(qapp)
    return qapp


@pytest.fixture(autouse=True)
def _nothing_left_running():
    """After a GUI test, no compute thread, debounce timer or window timer may still run."""
    yield
    if "designer.ui.services.compute" not in sys.modules:
        return  # not a GUI test: Qt was never loaded
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from designer.ui.services.compute import running_services

    assert not running_services(), "a ComputeService still runs its thread or timer"
    app = QApplication.instance()
    # A worker whose first Qt user was a command that renders without widgets (`render`) holds a
    # QGuiApplication: it has no windows to check, and no topLevelWidgets().
    if isinstance(app, QApplication):
        from designer.ui.shell.main_window import MainWindow

        for widget in app.topLevelWidgets():
            if isinstance(widget, MainWindow):
                active = [f"{t.parent().metaObject().className()}/{t.objectName() or 'timer'}"
                          for t in widget.findChildren(QTimer) if t.isActive()]
                assert not active, f"timers still running after the test: {active}"


# --- GUI tests: a window whose questions are answered by the test ------------------------------


class ScriptedDialogs:
    """Stands in for designer.ui.shell.dialogs.Dialogs: answers from attributes, records what was shown."""

    def __init__(self):
        self.save_changes = "discard"
        self.recover = True
        self.open_answer = None
        self.save_answer = None
        self.open_elsewhere = "read-only"
        self.overwrite_changed = "overwrite"
        self.errors: list[tuple[str, str, str]] = []
        self.asked: list[str] = []

    def ask_save_changes(self, name):
        self.asked.append(f"save-changes:{name}")
        return self.save_changes

    def ask_recover(self, recovery):
        self.asked.append(f"recover:{recovery.autosave.name}")
        return self.recover

    def ask_open_elsewhere(self, name):
        self.asked.append(f"open-elsewhere:{name}")
        return self.open_elsewhere

    def ask_overwrite_changed(self, name):
        self.asked.append(f"overwrite-changed:{name}")
        return self.overwrite_changed

    def show_error(self, title, text, detail=""):
        self.errors.append((title, text, detail))

    def open_path(self, directory=""):
        return self.open_answer

    def save_path(self, suggestion=""):
        return self.save_answer


@pytest.fixture
def make_window(qtbot):
    """make_window(design=None, path=None, synchronous=True, **kw) -> a shown MainWindow."""
    from window_fixtures import guard_modal_questions

    from designer.ui.shell.main_window import MainWindow

    def make(design=None, path=None, synchronous=True, dialogs=None, **kwargs):
        window = MainWindow(dialogs=dialogs or ScriptedDialogs(), synchronous=synchronous, **kwargs)
        qtbot.addWidget(window)
        guard_modal_questions(window)
        window.resize(1400, 900)
        if design is not None:
            window.document.load(design, path)
        window.show()
        qtbot.waitExposed(window)
        return window

    return make


@pytest.fixture(scope="session")
def shared_window(qapp):
    """shared_window(request, design=None, path=None) -> a shown MainWindow, as `make_window`
    makes one, for a module-scoped fixture (`request` is that fixture's): made once for tests that
    only read it (at the sizes they set) or put it back as they found it, closed when the fixture
    ends."""
    return _shared_window


def _shared_window(request, design=None, path=None):
    """A window kept for the tests of a wider fixture than one test: `window_fixtures.one_window`,
    made under user folders of its own (its settings, autosave and open-files folders are the
    fixture's, never the real user's) and closed when that fixture ends."""
    from window_fixtures import one_window

    made = one_window(request.getfixturevalue("tmp_path_factory").mktemp("window"))
    window = made.__enter__()
    request.addfinalizer(lambda: made.__exit__(None, None, None))
    if design is not None:
        window.document.load(design, path)
    return window
