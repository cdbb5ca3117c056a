"""Hostile input, round three: FIFOs and devices as inputs and outputs, capped capture and rate
readers, output options that name a folder, numbers and names people mistype. Each case gets one
line on stderr and exit 1 or 2, at once, and nothing is written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from designer.cli.main import main
from designer.io.atomic import WriteRefused, write_atomic

ROOT = Path(__file__).resolve().parents[1]
SU1 = ROOT / "examples" / "dgx-h100-superpod-1su.json"
NEW = ["new", "--template", "rail-optimized", "--nodes", "32"]


def cli(capsys, *args) -> tuple[int, str]:
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:   # argparse refusals
        code = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, err


def refused(capsys, *args) -> str:
    code, err = cli(capsys, *args)
    assert code in (1, 2), err
    assert err.count("\n") == 1 and err.startswith("fabric-designer"), err
    assert ".tmp" not in err and ".part" not in err, err
    return err


@pytest.fixture
def fifo(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("this platform has no named pipes")
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_a_fifo_is_refused_as_an_input_without_blocking(capsys, fifo):
    assert "is a FIFO (named pipe), not a project file" in refused(capsys, "metrics", fifo)
    err = refused(capsys, "import", fifo, "-o", fifo.parent / "x.json")
    assert "is a FIFO (named pipe), not a fabric capture" in err
    assert "is a FIFO (named pipe), not a fabric capture" in refused(capsys, "audit", fifo, "--json")


def test_a_fifo_is_refused_as_an_output_without_blocking(capsys, fifo):
    for extra in ([], ["--force"]):
        assert "is a FIFO (named pipe), not a file" in refused(capsys, *NEW, "-o", fifo, *extra)
    with pytest.raises(WriteRefused, match="FIFO"):
        write_atomic(fifo, "x")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="a system with /dev/zero")
def test_endless_devices_are_refused_by_every_reader(capsys, tmp_path):
    assert "is a device, not a fabric capture" in refused(capsys, "import", "/dev/zero", "-o", tmp_path / "x.json")
    assert "is a device, not a fabric capture" in refused(capsys, "audit", "/dev/zero", "--json")
    assert "is a device, not a failure-rate table" in refused(capsys, "whatif", SU1, "--interruptions",
                                                             "--rates", "/dev/zero")
    assert not (tmp_path / "x.json").exists()


def test_captures_and_rate_tables_are_read_with_a_cap(capsys, tmp_path, monkeypatch):
    from designer.io import fabric_capture
    from designer.model.decisions import interruptions

    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 5000)
    monkeypatch.setattr(fabric_capture, "MAX_BYTES", 4096)
    monkeypatch.setattr(interruptions, "MAX_RATES_BYTES", 4096)
    assert "larger than 4,096 bytes; not a fabric capture" in refused(capsys, "audit", big, "--json")
    assert "larger than 4,096 bytes; not a failure-rate table" in refused(capsys, "whatif", SU1, "--interruptions",
                                                                          "--rates", big)


@pytest.mark.parametrize("args", [
    ["compare", SU1, SU1, "--csv", "{dir}"],
    ["bom", SU1, "-o", "{dir}"],
    ["bom", SU1, "--cabling", "{dir}"],
    ["audit", SU1, "--csv", "{dir}"],
    ["sweep", "--gpus", "256", "--csv", "{dir}"],
    [*NEW, "-o", "{dir}"],
    ["render", SU1, "-o", "{dir}"],
    ["report", SU1, "-o", "{dir}"],
    ["counterpart", SU1, "--technology", "roce-400g", "-o", "{dir}"],
])
def test_every_output_option_refuses_a_folder_by_name(capsys, tmp_path, args):
    folder = tmp_path / "some_dir"
    folder.mkdir()
    err = refused(capsys, *[str(a).replace("{dir}", str(folder)) for a in args])
    assert f"{folder} is a folder; give a file name" in err
    assert list(folder.iterdir()) == []


def test_a_read_only_folder_is_named_and_no_temporary_name_leaks(capsys, tmp_path, monkeypatch):
    def denied(*_, **__):
        raise PermissionError(13, "Permission denied", str(tmp_path / ".x.json.om0xe1ke.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    err = refused(capsys, *NEW, "-o", tmp_path / "x.json")
    assert f"folder {tmp_path} is read-only or not yours" in err
    assert "om0xe1ke" not in err and "Errno" not in err


@pytest.mark.parametrize("option, value", [
    ("--gpus", "\uff16\uff14"), ("--gpus", "1_000"), ("--gpus", "1e3"), ("--gpus", "0x40"), ("--gpus", "٦٤"),
    ("--radix", "1e3"), ("--nodes-per-su", "3.0"),
])
def test_counts_are_plain_ascii_digits(capsys, tmp_path, option, value):
    args = ["new", "--template", "rail-optimized", option, value, "-o", tmp_path / "x.json"]
    if option != "--gpus":
        args[3:3] = ["--gpus", "256"]
    err = refused(capsys, *args)
    assert "expected a whole number in plain digits (like 64)" in err
    assert not (tmp_path / "x.json").exists()


def test_a_ratio_with_odd_digits_is_refused(capsys, tmp_path):
    err = refused(capsys, *NEW, "--oversubscription", "\uff12", "-o", tmp_path / "x.json")
    assert "oversubscription" in err


@pytest.mark.parametrize("option", ["--technology", "--switch", "--server"])
def test_an_empty_name_is_refused_not_taken_as_unset(capsys, tmp_path, option):
    err = refused(capsys, *NEW, option, "", "-o", tmp_path / "x.json")
    assert f"argument {option}: must not be empty" in err
    assert not (tmp_path / "x.json").exists()


def test_a_server_variant_must_match_its_switchs_technology(capsys, tmp_path):
    err = refused(capsys, "new", "--template", "rail-optimized", "--nodes", "64", "--server", "dgx-b300-eth",
                  "--switch", "qm9700", "-o", tmp_path / "x.json")
    assert "is built for ethernet" in err and "use --server dgx-b300-xdr" in err
    assert cli(capsys, "new", "--template", "rail-optimized", "--nodes", "64", "--server", "dgx-b300-xdr",
               "--switch", "qm9700", "-o", tmp_path / "y.json")[0] in (0, 1)


def test_every_file_is_read_and_written_through_the_one_helper():
    """No module opens a file itself: reads go through limits.read_capped (regular files only,
    capped), writes through io/atomic.py (atomic, the user's umask)."""
    import re

    direct = re.compile(r"(?<![\w.])open\(|\b(?:os|io|codecs)\.open\(|\.read_text\(|\.read_bytes\(|\.write_text\("
                        r"|\.write_bytes\(|tomllib\.load\(")
    allowed = {ROOT / "designer" / "limits.py", ROOT / "designer" / "io" / "atomic.py"}
    offenders = [f"{path.relative_to(ROOT)}:{n}" for path in (ROOT / "designer").rglob("*.py") if path not in allowed
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if direct.search(line) and not line.lstrip().startswith(("#", "def ")) and "QIODevice" not in line
                 and "os.open(os.devnull" not in line and "os.open(folder" not in line]
    assert offenders == []
