"""A design that differs from one already derived in its performance settings alone takes that
one's parts, plan and metrics (derive_as); any other difference derives it afresh."""

from __future__ import annotations

from dataclasses import replace

import pytest

from designer.catalog import default_catalog
from designer.model.intent.design import Edit, replace_path
from designer.model.networks.defaults import ra_networks
from designer.model.topology import derive as derive_mod
from designer.model.topology.derive import derive, derive_as
from designer.model.topology.presets import new_design

CAT = default_catalog()


@pytest.fixture
def sized():
    return new_design(CAT, "fat-tree", gpus=1024, switch="qm9700")


def _measured(monkeypatch) -> list[int]:
    """A call per time the metrics are computed afresh."""
    calls: list[int] = []
    real = derive_mod.compute_metrics

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(derive_mod, "compute_metrics", counting)
    return calls


def test_other_performance_settings_share_the_plan_and_metrics(sized, monkeypatch):
    like = derive(sized, CAT)
    calls = _measured(monkeypatch)
    assumed = replace(sized, performance=replace(sized.performance, placement="scattered", occupancy=0.6,
                                                 background_load=0.2))
    got = derive_as(assumed, like, CAT)
    assert calls == []
    assert got.design is assumed and got.design.performance.placement == "scattered"
    assert got.plan is like.plan and got.resolved is like.resolved and got.metrics is like.metrics
    # what it shares is what deriving it afresh gives
    derive_mod._CACHE.clear()
    fresh = derive(assumed, CAT)
    assert calls == [1]
    assert fresh.metrics == got.metrics and fresh.plan == got.plan


def test_any_other_difference_derives_afresh(sized, monkeypatch):
    like = derive(sized, CAT)
    calls = _measured(monkeypatch)
    wider = replace_path(sized, "floorplan.racks_per_row", 24)
    moved = replace(wider, performance=replace(wider.performance, placement="spread"))
    got = derive_as(moved, like, CAT)
    assert calls == [1]
    assert got.design is moved and got.metrics is not like.metrics


@pytest.mark.parametrize("template", ["fat-tree", "rail-optimized"])
def test_the_other_networks_added_to_a_derived_design_share_its_plan_and_metrics(template, monkeypatch):
    """`new` sizes the compute fabric, then adds the storage and management networks: sizing and
    measuring the fabric never read them, so the design with them is not measured again, and what
    it shares is what deriving it afresh gives."""
    bare = new_design(CAT, template, gpus=1024, switch="qm9700")
    like = derive(bare, CAT)
    calls = _measured(monkeypatch)
    full = replace(bare, networks=ra_networks(CAT.server(bare.cluster.server)))
    assert full.networks
    got = derive(full, CAT)
    assert calls == []
    assert got.design is full and got.plan is like.plan and got.metrics is like.metrics
    derive_mod._CACHE.clear()
    fresh = derive(full, CAT)
    assert calls == [1]
    assert fresh.metrics == got.metrics and fresh.plan == got.plan and fresh.resolved == got.resolved



def test_an_edited_design_with_other_networks_is_derived_afresh(sized):
    edited = replace(sized, edits=(Edit("remove-device", "spine-1"),))
    like = derive(edited, CAT)
    got = derive(replace(edited, networks=ra_networks(CAT.server(edited.cluster.server))), CAT)
    assert got.plan is not like.plan and got.metrics is not like.metrics
    assert got.metrics == like.metrics
