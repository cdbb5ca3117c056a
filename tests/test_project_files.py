"""Project files: versioned JSON, atomic writes, validation that names the field."""

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.io import project
from designer.io.project import ProjectFileError, design_from_json, design_to_json, load_design, save_design
from designer.model.intent.design import ClusterSpec, Edit, FabricDesign, FabricSpec, Meta, TierSpec
from tests.helpers import examples, superpod

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
designs = st.builds(
    FabricDesign,
    meta=st.builds(Meta, name=text, author=text, notes=text),
    cluster=st.builds(ClusterSpec, server=st.sampled_from(["dgx-h100", "dgx-a100"]),
                      servers=st.integers(1, 10**6), gpus_per_server=st.none() | st.integers(1, 72)),
    fabric=st.builds(FabricSpec, template=st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]),
                     tiers=st.sampled_from([None, 2, 3]), planes=st.integers(1, 8),
                     nodes_per_su=st.integers(1, 128),
                     spine=st.builds(TierSpec, count=st.none() | st.integers(1, 500),
                                     oversubscription=st.floats(0.25, 16))),
    edits=st.lists(st.builds(Edit, op=st.sampled_from(["add-links", "remove-links", "remove-device"]),
                             a=text, b=text, count=st.integers(1, 64)), max_size=3).map(tuple),
)


@settings(max_examples=examples(150), deadline=None)
@given(designs)
def test_any_design_round_trips_exactly(design):
    again = design_from_json(design_to_json(design))
    assert again == design
    assert again.content_key() == design.content_key()


def _plain_data(obj):
    """`to_data` as the dataclasses module reads a tree, field by field, with no per-class table."""
    import dataclasses

    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain_data(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if not (f.metadata.get("omit_empty") and not getattr(obj, f.name))
                and not (f.metadata.get("omit_none") and getattr(obj, f.name) is None)}
    if isinstance(obj, (list, tuple)):
        return [_plain_data(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): _plain_data(v) for k, v in obj.items()}
    return obj


@settings(max_examples=examples(60), deadline=None)
@given(designs)
def test_the_designs_data_is_every_field_as_the_dataclass_states_it(design):
    # to_data keeps each class's fields in a table; a dataclass given as a value (a class, not an
    # instance) stays a value. Equal data, key order included: the content key hashes the text.
    from designer.model.intent.serde import to_data

    for tree in (design, [design.fabric, {"spec": TierSpec}, (Meta,)], TierSpec):
        assert json.dumps(to_data(tree), default=repr) == json.dumps(_plain_data(tree), default=repr)


@settings(max_examples=examples(200), deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(text, kids, max_size=4),
                    max_leaves=20))
def test_arbitrary_json_in_the_design_slot_gives_a_clean_error_or_a_design(junk):
    doc = json.dumps({"format": "fabric-designer", "format_version": 1, "design": junk})
    try:
        design = design_from_json(doc)
    except ProjectFileError as exc:
        assert "\n" not in str(exc)
    else:
        assert isinstance(design, FabricDesign)


def test_save_then_load(tmp_path):
    path = tmp_path / "a.json"
    design = superpod(2)
    save_design(design, path)
    assert load_design(path) == design
    doc = json.loads(path.read_text())
    assert doc["format"] == "fabric-designer" and doc["format_version"] == project.FORMAT_VERSION


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d["design"]["cluster"].update(servers="many"), "design.cluster.servers: expected a whole number"),
    (lambda d: d["design"]["cluster"].update(servers=-3), "design.cluster.servers: must be a positive number"),
    (lambda d: d["design"]["fabric"].update(template="torus"), "design.fabric.template: must be one of"),
    (lambda d: d["design"]["fabric"]["spine"].update(oversubscription=None), "design.fabric.spine.oversubscription"),
    (lambda d: d["design"]["fabric"].update(colour="red"), "design.fabric.colour: unknown field"),
    (lambda d: d.update(format_version=99), "written by a newer Fabric Designer"),
    (lambda d: d.update(format="something-else"), "not a Fabric Designer project"),
])
def test_bad_files_name_the_problem(tmp_path, mutate, expected):
    doc = json.loads(design_to_json(superpod(1)))
    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProjectFileError) as info:
        load_design(path)
    assert expected in str(info.value)
    assert str(path) in str(info.value)


def test_truncated_and_binary_files(tmp_path):
    full = design_to_json(superpod(1))
    path = tmp_path / "t.json"
    path.write_text(full[: len(full) // 2])
    with pytest.raises(ProjectFileError, match="truncated"):
        load_design(path)
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(ProjectFileError, match="not a text file"):
        load_design(path)
    with pytest.raises(ProjectFileError, match="no such file"):
        load_design(tmp_path / "missing.json")


def test_a_failed_save_leaves_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "keep.json"
    save_design(superpod(1), path)
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        save_design(superpod(4), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]  # no temporary file left behind
