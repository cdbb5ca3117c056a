"""Reading a capture pauses Python's cyclic garbage collection and leaves it as it found it:
on where the command line left it on (also when the capture is refused), off where the window
turned it off to collect on its UI thread."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from capture_factory import make_capture  # noqa: E402

from designer.io.fabric_capture import CaptureError, read_answer
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec
from designer.model.topology.derive import derive


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    design = FabricDesign(cluster=ClusterSpec(servers=16), fabric=FabricSpec(template="rail-optimized"))
    path = tmp_path / "c.topo"
    path.write_text(make_capture(derive(design), 0).text)
    return path


@pytest.fixture
def collection_state():
    was_on = gc.isenabled()
    yield
    if was_on:
        gc.enable()
    else:
        gc.disable()


def test_collection_is_off_while_reading_and_on_again_after(capture, monkeypatch, collection_state):
    import designer.io.fabric_capture as fabric_capture
    seen = []
    real = fabric_capture.capture_answer
    monkeypatch.setattr(fabric_capture, "capture_answer", lambda *a, **k: seen.append(gc.isenabled()) or real(*a, **k))
    gc.enable()
    answer = read_answer(capture)
    assert seen == [False] and gc.isenabled()
    assert answer.inference.design is not None


def test_collection_is_on_again_after_a_refused_capture(tmp_path, collection_state):
    bad = tmp_path / "bad.topo"
    bad.write_text("not a capture\n")
    gc.enable()
    with pytest.raises(CaptureError):
        read_answer(bad)
    assert gc.isenabled()


def test_collection_left_off_where_it_was_off(capture, collection_state):
    gc.disable()
    read_answer(capture)
    assert not gc.isenabled()
