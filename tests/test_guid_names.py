"""A site's GUID name map names the HCAs whose descriptions are the vendor's defaults."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from designer.cli.main import main
from designer.io.fabric_capture import read_answer
from designer.io.guid_names import read_guid_names
from tests.helpers import examples

X5 = Path(__file__).parent / "data" / "real_captures" / "ltaulell-HPC_toolset"

guids = st.integers(0, 2**64 - 1).map(lambda n: f"{n:016x}")
hostnames = st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)


@settings(max_examples=examples(60), deadline=None)
@given(st.dictionaries(guids, hostnames, min_size=1, max_size=30), st.sampled_from(["H-", "0x", ""]))
def test_a_map_reads_back_every_guid_and_name(tmp_path_factory, entries, prefix):
    path = tmp_path_factory.mktemp("map") / "site.map"
    path.write_text("# site map\n" + "".join(f"{prefix}{g.upper()}  {n}\n" for g, n in entries.items()))
    assert read_guid_names(path) == entries


def test_the_map_beside_a_capture_names_its_hosts_and_names_can_be_given(tmp_path, capsys):
    shutil.copy(X5 / "X5.topofile", tmp_path / "X5.topofile")
    alone = read_answer(tmp_path / "X5.topofile")          # no map beside it
    assert not any(d.host for d in alone.fabric.endpoints())
    shutil.copy(X5 / "X5.map", tmp_path / "site-names.txt")
    given_map = read_answer(tmp_path / "X5.topofile", names=tmp_path / "site-names.txt")
    hosts = {d.host for d in given_map.fabric.endpoints() if d.host}
    assert "r510gluster1" in hosts and len(hosts) == 86
    assert given_map.inference.facts[0].value == "86 from site-names.txt"
    assert len(given_map.report.unnamed_devices) < len(alone.report.unnamed_devices)
    capsys.readouterr()
    assert main(["audit", str(tmp_path / "X5.topofile"), "--names", str(tmp_path / "site-names.txt")]) == 0
    assert "host names 86 from site-names.txt (high)" in capsys.readouterr().out


def test_a_file_that_is_not_a_map_is_one_line(tmp_path, capsys):
    shutil.copy(X5 / "X5.topofile", tmp_path / "X5.topofile")
    (tmp_path / "bad.map").write_text("hello\n")
    capsys.readouterr()
    assert main(["audit", str(tmp_path / "X5.topofile"), "--names", str(tmp_path / "bad.map")]) == 1
    err = capsys.readouterr().err
    assert "not a GUID name map" in err and err.count("\n") == 1
