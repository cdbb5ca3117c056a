"""`fabric-designer catalog`: the ids `new` takes, listed with names, availability and sources."""

import json

import pytest

from designer.catalog import default_catalog
from designer.cli.main import main


def _json(capsys, *args):
    assert main(["catalog", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_technologies_json_lists_every_technology_id(capsys):
    listed = _json(capsys, "technologies")
    assert list(listed) == ["technologies"]
    assert [row["id"] for row in listed["technologies"]] == sorted(default_catalog().technologies)
    assert "roce-ecmp-400g" in {row["id"] for row in listed["technologies"]}
    assert all(row["source"] and row["name"] for row in listed["technologies"])


def test_media_lists_transceivers_and_cables_with_their_kind(capsys):
    rows = _json(capsys, "media")["media"]
    catalog = default_catalog()
    assert {r["id"] for r in rows if r["kind"] == "transceiver"} == set(catalog.transceivers)
    assert {r["id"] for r in rows if r["kind"] == "cable"} == set(catalog.cables)


def test_without_a_section_every_part_is_listed(capsys):
    listed = _json(capsys)
    assert list(listed) == ["servers", "switches", "technologies", "media"]
    servers = {r["id"]: r for r in listed["servers"]}
    assert set(servers) == set(default_catalog().servers)
    # a shipping server states its quarter; the text carries it as the window does
    assert servers["dgx-h100"]["availability"].startswith("shipping since ")


@pytest.mark.parametrize("section", ["servers", "switches", "technologies", "media", "nics"])
def test_text_lists_each_id_once_per_line(capsys, section):
    assert main(["catalog", section]) == 0
    out = capsys.readouterr().out
    expected = _json(capsys, section)[section]
    first_words = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert first_words == [r["id"] for r in expected]


def test_an_unknown_section_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["catalog", "gpus-of-the-moon"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "invalid choice" in err[-1]


def test_new_help_points_to_the_catalog_command(capsys):
    with pytest.raises(SystemExit):
        main(["new", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "fabric-designer catalog technologies" in help_text
    assert "roce-ecmp-400g" in help_text
