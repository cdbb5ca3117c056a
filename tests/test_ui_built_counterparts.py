"""A counterpart the window built is kept: asked for again (Compare, then the report with it), it
is not sized again, and what is kept is what the model builds."""

from __future__ import annotations

from collections import OrderedDict

import pytest

from designer.catalog import default_catalog
from designer.model.decisions.counterpart import make_counterpart
from designer.model.intent.design import replace_path
from designer.model.topology.sizing import SizingError
from designer.ui.services import counterparts
from tests.window_fixtures import example


@pytest.fixture
def builds(monkeypatch):
    """The calls of make_counterpart behind the window's cache, with the cache emptied."""
    monkeypatch.setattr(counterparts, "_BUILT", OrderedDict())
    calls = []

    def counting(design, technology, catalog):
        calls.append((design.meta.name, technology))
        return make_counterpart(design, technology, catalog)

    monkeypatch.setattr(counterparts, "make_counterpart", counting)
    return calls


def test_a_counterpart_is_built_once_and_is_the_models(builds):
    design, catalog = example("dgx-h100-superpod-1su.json"), default_catalog()
    first = counterparts.counterpart(design, "roce-400g", catalog)
    assert first == make_counterpart(design, "roce-400g", catalog)
    again = counterparts.counterpart(replace_path(design, "meta.name", design.meta.name), "roce-400g", catalog)
    assert again is first                      # an equal design is the same design
    assert len(builds) == 1
    other = counterparts.counterpart(design, "roce-800g", catalog)
    assert other.design.fabric.technology == "roce-800g" and len(builds) == 2
    renamed = counterparts.counterpart(replace_path(design, "meta.name", "renamed"), "roce-400g", catalog)
    assert renamed.design.meta.name != first.design.meta.name and len(builds) == 3


def test_a_refusal_is_not_kept(builds):
    h100 = example("dgx-h100-superpod-1su.json")
    for _ in range(2):
        with pytest.raises(SizingError, match="ConnectX-7"):   # an H100's NIC runs no XDR
            counterparts.counterpart(h100, "ib-xdr", default_catalog())
    assert len(builds) == 2


def test_only_the_most_recent_are_kept(builds, monkeypatch):
    monkeypatch.setattr(counterparts, "KEPT", 2)
    design, catalog = example("dgx-h100-superpod-1su.json"), default_catalog()
    for tech in ("roce-400g", "roce-800g", "roce-400g", "roce-ecmp-400g", "roce-400g"):
        counterparts.counterpart(design, tech, catalog)
    # roce-400g stayed (used last each time); roce-800g was dropped when roce-ecmp-400g came.
    assert builds == [(design.meta.name, t) for t in ("roce-400g", "roce-800g", "roce-ecmp-400g")]
    counterparts.counterpart(design, "roce-800g", catalog)
    assert len(builds) == 4


def test_compare_then_the_report_with_the_counterpart_sizes_it_once(builds, make_window, qtbot, tmp_path):
    design = example("dgx-h100-superpod-1su.json")
    window = make_window(design)
    assert window.compare_launcher.add_counterpart("roce-400g")
    assert builds == [(design.meta.name, "roce-400g")]
    window.exports.ask_path = lambda *a: str(tmp_path / "with-roce.pdf")
    with qtbot.waitSignal(window.exports.finished, timeout=60_000) as blocker:
        window.exports.actions["report_roce-400g"].trigger()
    assert blocker.args == [str(tmp_path / "with-roce.pdf"), ""]
    assert builds == [(design.meta.name, "roce-400g")]
    window.compare_launcher.window.close()
