"""A seeded campaign of hostile input against the command line: every reader, every export with
hostile names, hostile arguments, and outputs that must not be left half-written.

`make_cases(seed, count, base)` draws the cases from a seed, so a run is reproducible and a
failing case can be run again by its name. `run_cases(cases, ...)` runs them in fresh processes
under an address-space cap (resource.setrlimit) and a time limit, several cases a process when
`per_process` > 1 (each case still calls `main()` from the start in its own folder, with the
catalog's cache cleared), and judges each end:

- internal: exit code other than 0, 1 or 2, a traceback, "internal error", or the process died
  (memory cap, time limit);
- silent: a refusal (exit 1 or 2) with nothing on stderr;
- raw control: a control character other than a line break or tab on stdout or stderr;
- leftover: a refused case left its output, or any case left a temporary file or folder;
- binary export: an export that worked wrote a NUL byte.

tests/test_hostile_campaign.py runs a few hundred cases; benchmarks/bench_hostile_input.py runs
the full campaign, one process a case.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "dgx-h100-superpod-1su.json"
ROCE_EXAMPLE = ROOT / "examples" / "roce-512-leaf-spine-sn5600.json"
MEMORY_CAP = 2 * 2**30        # bytes of address space a case's process may take
SECONDS_PER_CASE = 30.0       # a case's process is stopped after this many seconds a case

FORMATS = ("slurm-tree", "slurm-block", "slurm-yaml", "netbox", "clab", "graphml", "dot", "dot-bundled",
           "drawio", "ibnetdiscover", "ndt")
INFINIBAND_ONLY = {"ibnetdiscover", "ndt"}
ETHERNET_ONLY = {"clab"}

# Values that reach a numeric, size, speed, view or pattern option: each is refused in one line
# or taken as the number it plainly is.
HOSTILE_VALUES = (
    "", " ", "\n", "８", "６４", "４００G", "８Gi", "8Gi", "1Mi", "8Ti", "8GiB", "8gib", "nan", "NaN", "inf",
    "-inf", "1e999", "-1", "0", "1_000", "1e3", "9" * 50, "9" * 5000, "0x10", "4２", "\u0664", "1.5", "64\n",
    "400G\n", "400G\x00", "\x1b[2J", "1" + "\u200b", "+64", "--", "-", "12345678901234567890",
)
VIEW_VALUES = ("su:１", "su:1\n", "su:0", "su:99999999999999", "plane:-1", "su:", "su:1:2", "SU:1", "fabric\n",
               "plane:\u0664", "slide:1")
RENDER_REFUSED_VIEWS = ("su:１", "su:0", "su:", "su:1:2", "plane:\u0664", "plane:-1", "su:99999999999999")
PATTERN_VALUES = ("gpu{n}\n", "{n}\x1b[2J", "{n!r}", "{0}", "{n:>100000}", "{n}{", "x" * 70 + "{n}", "{n}\x00",
                  "gpu-{n}\r", "{su}", "leaf-{n}", "{n:04d}\u2028", "é{n}")
NAME_VALUES = ("x\nBisection   999 Tb/s\x1b[2J", "=cmd|' /C calc'!A0", "<b>&amp;\"'</b>", "\x00nul", "\u202eevil",
               "a" * 10_000, "\udc80", "line\r\nbreak", "\t;DROP", "\x9b2J", "名前", "\u2028sep")


@dataclass
class Case:
    name: str
    argv: list[str]                        # "{dir}" stands for the case's folder
    files: dict[str, bytes] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    folders: tuple[str, ...] = ()
    links: dict[str, str] = field(default_factory=dict)   # link -> target, in the case's folder
    output: str = ""                       # must not exist after a refusal


@dataclass
class Outcome:
    name: str
    code: int
    stdout: str
    stderr: str
    seconds: float
    defects: list[str]


# --- the material the cases start from ----------------------------------------------------------

@dataclass
class Base:
    project: bytes
    roce_project: bytes
    ibnetdiscover: bytes
    lldp_json: bytes
    lldp_csv: bytes
    prices: bytes
    rates: bytes
    catalog_switch: bytes


def make_base() -> Base:
    """Valid inputs of every kind, made by the program itself (imports the designer here only)."""
    from designer.io.ibnetdiscover import export_ibnetdiscover
    from designer.io.lldp import export_lldp_json
    from designer.io.project import load_design
    from designer.model.topology.derive import derive

    ib = export_ibnetdiscover(derive(load_design(EXAMPLE)))
    roce = derive(load_design(ROCE_EXAMPLE))
    lldp = export_lldp_json(roce)
    csv_rows = ["local device,local port,remote device,remote port,speed"]
    csv_rows += [f"leaf-{i // 8 + 1},swp{i % 8 + 1},gpu-node-{i + 1:04d},eth0,400G" for i in range(32)]
    text = (ROOT / "resources" / "catalog" / "switches.toml").read_text(encoding="utf-8")
    first = text.index("[[switch]]")
    entry = text[first:text.index("[[switch]]", first + 1)]
    return Base(EXAMPLE.read_bytes(), ROCE_EXAMPLE.read_bytes(), ib.encode(), lldp.encode(),
                ("\n".join(csv_rows) + "\n").encode(),
                (ROOT / "resources" / "prices" / "default.toml").read_bytes(),
                (ROOT / "resources" / "reliability" / "failure_rates.toml").read_bytes(),
                entry.replace('id = "', 'id = "user-', 1).encode())


# --- mutations of a file's bytes ----------------------------------------------------------------------

_NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_HOSTILE_NUMBERS = (b"NaN", b"Infinity", b"-Infinity", b"nan", b"inf", b"1e999", b"9" * 5000, b"-1", b"1.5",
                    b"\xef\xbc\x98", b"1e-400", b"4294967296", b"[]", b"{}", b'"x"', b"true", b"null")


def _deep(rng: random.Random, kind: str) -> bytes:
    depth = rng.choice((65, 100, 1000, 100_000))
    nest = b"[" * depth + b"]" * depth
    if kind == "toml":
        return b"[[rate]]\nid = \"x\"\nlabel = " + nest + b"\n"
    if kind == "lldp":
        return b'{"lldp": ' + nest + b"}"
    if kind == "ibnetdiscover":
        return b"Switch 2 \"S-" + b"[" * depth + b"\"\n"
    return b'{"format": "fabric-designer", "format_version": 1, "design": ' + nest + b"}"


def mutate(rng: random.Random, data: bytes, kind: str) -> tuple[str, bytes]:
    """One hostile change of `data`; returns (what was done, the bytes)."""
    how = rng.choice(("deep", "truncate", "nul", "flip", "number", "dup-line", "drop-line", "control",
                      "repeat", "empty", "bom", "binary", "values", "surrogate", "dangling"))
    lines = data.split(b"\n")
    if how == "deep":
        return how, _deep(rng, kind)
    if how == "truncate":
        return how, data[:rng.randrange(1, max(2, len(data)))]
    if how == "nul":
        at = rng.randrange(len(data))
        return how, data[:at] + b"\x00" + data[at:]
    if how == "flip":
        out = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return how, bytes(out)
    if how == "number":
        found = list(_NUMBER.finditer(data))
        if found:
            m = rng.choice(found)
            return how, data[:m.start()] + rng.choice(_HOSTILE_NUMBERS) + data[m.end():]
        return how, data + b"\n" + rng.choice(_HOSTILE_NUMBERS)
    if how == "dup-line":
        i = rng.randrange(len(lines))
        return how, b"\n".join(lines[:i + 1] + [lines[i]] + lines[i + 1:])
    if how == "drop-line":
        i = rng.randrange(len(lines))
        return how, b"\n".join(lines[:i] + lines[i + 1:])
    if how == "control":
        at = rng.randrange(len(data))
        return how, data[:at] + rng.choice((b"\x1b[2J", b"\r", b"\x07", b"\xc2\x9b", b"\xe2\x80\xa8")) + data[at:]
    if how == "repeat":
        i = rng.randrange(len(lines))
        times = min(rng.choice((1000, 20_000)), 8 * 2**20 // (len(lines[i]) + 1))   # at most ~8 MB
        return how, b"\n".join(lines[:i] + [lines[i]] * times + lines[i + 1:])
    if how == "empty":
        return how, rng.choice((b"", b" ", b"\n", b"\xef\xbb\xbf"))
    if how == "bom":
        return how, b"\xef\xbb\xbf" + data
    if how == "binary":
        return how, bytes(rng.randrange(256) for _ in range(rng.choice((16, 4096))))
    if how == "values":
        count = rng.choice((10_000, 200_000))
        if kind in ("json", "lldp"):
            return how, b'{"lldp": [' + b"0," * count + b"0]}" if kind == "lldp" else b"[" + b"0," * count + b"0]"
        return how, data + b"\n" + b"x = [" + b"0," * count + b"0]\n"
    if how == "surrogate":
        at = data.find(b'"', rng.randrange(len(data)))
        at = at if at >= 0 else 0
        return how, data[:at + 1] + rng.choice((b"\\udc80", b"\xed\xb2\x80", b"\\ud800x")) + data[at + 1:]
    # dangling: a reference to something the file does not describe
    if kind == "ibnetdiscover":
        at = data.find(b"\n[", rng.randrange(len(data)))
        at = at if at >= 0 else len(data)
        line = rng.choice((b'\n[1]\t"H-ffff"[1]\t# x', b'\n[2]\t"S-dead"[9]\t\t# "ghost" lid 9 4xNDR',
                           b'\n[99999999999]\t"H-1"[1]\t# x'))
        return how, data[:at] + line + data[at:]
    if kind == "lldp-csv":
        return how, data + b"leaf-1,swp99,,eth0,400G\nghost,,leaf-1,swp1,9e999G\n"
    return how, data.replace(b'"qm9700"', b'"no-such-switch"', 1).replace(b'"dgx-h100"', b'"nope"', 1)


# --- the cases ---------------------------------------------------------------------------------------

def _reader_case(rng: random.Random, base: Base, n: int) -> Case:
    kind = rng.choice(("project", "ibnetdiscover", "lldp", "lldp-csv", "prices", "rates", "catalog"))
    if kind == "project":
        how, data = mutate(rng, base.project, "json")
        command = rng.choice((["metrics", "{dir}/in.json"], ["bom", "{dir}/in.json"],
                              ["metrics", "{dir}/in.json", "--json"],
                              ["collectives", "{dir}/in.json", "--size", "8Gi"],
                              ["compare", "{dir}/in.json", str(EXAMPLE)],
                              ["whatif", "{dir}/in.json", "--interruptions"],
                              ["export", "{dir}/in.json", "-f", "slurm-tree", "-o", "{dir}/out"]))
        return Case(f"{n:05d}-project-{how}", command, {"in.json": data}, output="{dir}/out")
    if kind in ("ibnetdiscover", "lldp", "lldp-csv"):
        source = {"ibnetdiscover": base.ibnetdiscover, "lldp": base.lldp_json, "lldp-csv": base.lldp_csv}[kind]
        how, data = mutate(rng, source, {"lldp": "lldp"}.get(kind, kind))
        command = rng.choice((["audit", "{dir}/capture"], ["audit", "{dir}/capture", "--json"],
                              ["import", "{dir}/capture", "-o", "{dir}/out"]))
        return Case(f"{n:05d}-{kind}-{how}", command, {"capture": data}, output="{dir}/out")
    if kind == "prices":
        how, data = mutate(rng, base.prices, "toml")
        return Case(f"{n:05d}-prices-{how}", ["bom", str(EXAMPLE), "--prices", "{dir}/prices.toml"],
                    {"prices.toml": data})
    if kind == "rates":
        how, data = mutate(rng, base.rates, "toml")
        return Case(f"{n:05d}-rates-{how}", ["whatif", str(EXAMPLE), "--interruptions", "--rates", "{dir}/rates.toml"],
                    {"rates.toml": data})
    how, data = mutate(rng, base.catalog_switch, "toml")
    return Case(f"{n:05d}-catalog-{how}", ["metrics", str(EXAMPLE)], {"config/catalog/user.toml": data},
                env={"FABRIC_DESIGNER_CONFIG_DIR": "{dir}/config"})


def _plain_int(value: str) -> bool:
    text = value.strip().lstrip("+")
    return text.isascii() and text.isdigit()


def _argument_case(rng: random.Random, n: int) -> Case:
    value = rng.choice(HOSTILE_VALUES)
    example = str(EXAMPLE)
    choices = (
        ["new", "--gpus", value, "-o", "{dir}/out"], ["new", "--nodes", value, "-o", "{dir}/out"],
        ["new", "--gpus", "64", "--speed", value, "-o", "{dir}/out"],
        ["new", "--gpus", "64", "--radix", value, "-o", "{dir}/out"],
        ["new", "--gpus", "64", "--oversubscription", value, "-o", "{dir}/out"],
        ["collectives", example, "--size", value], ["collectives", example, "--gpus", value],
        ["compare", example, example, "--size", value], ["compare", example, example, "--pue", value],
        ["sweep", "--gpus", value], ["sweep", "--gpus", "256", "--size", value],
        # render is given only values it refuses before Qt starts (a valid one would draw)
        ["render", example, "-o", "{dir}/out.png", "--dpi", "0" if _plain_int(value) else value],
        ["gui", "--screenshot", "{dir}/folder"], ["gui", "--screenshot", "{dir}/out.png", "--size", value + "x"],
        ["export", example, "-f", "slurm-tree", "-o", "{dir}/out", "--view", rng.choice(VIEW_VALUES)],
        ["render", example, "-o", "{dir}/out.svg", "--view", rng.choice(RENDER_REFUSED_VIEWS)],
        ["export", example, "-f", rng.choice(("ndt", "netbox", "ibnetdiscover")), "-o", "{dir}/out",
         "--node-pattern", rng.choice(PATTERN_VALUES)],
        ["grow", example, "--phases", value],
        ["new", "--server", "dgx-a100", "--switch", "qm9700", "--technology", "ib-xdr", "--gpus", "64",
         "-o", "{dir}/out"],
        ["new", "--switch", "sn5600", "--technology", "ib-ndr", "--gpus", "64", "-o", "{dir}/out"],
        ["metrics", "{dir}/folder"], ["audit", "{dir}/folder"], ["bom", example, "-o", "{dir}/folder"],
    )
    argv = list(rng.choice(choices))
    return Case(f"{n:05d}-argument-{argv[0]}", argv, folders=("folder",),
                output="{dir}/out" if "{dir}/out" in argv else "")


def _name_case(rng: random.Random, base: Base, n: int) -> Case:
    fmt = rng.choice(FORMATS)
    source = base.roce_project if fmt in ETHERNET_ONLY else base.project
    doc = json.loads(source)
    doc["design"]["meta"]["name"] = rng.choice(NAME_VALUES)
    data = json.dumps(doc, ensure_ascii=True).encode()
    if rng.random() < 0.3:
        command = rng.choice((["metrics", "{dir}/in.json"], ["collectives", "{dir}/in.json"],
                              ["compare", "{dir}/in.json", str(EXAMPLE)]))
        return Case(f"{n:05d}-name-{command[0]}", command, {"in.json": data})
    link = rng.random() < 0.2 and fmt != "netbox"
    out = "{dir}/link" if link else "{dir}/out"
    return Case(f"{n:05d}-name-export-{fmt}", ["export", "{dir}/in.json", "-f", fmt, "-o", out, "--force"],
                {"in.json": data, "target": b"old"} if link else {"in.json": data},
                links={"link": "target"} if link else {})


def make_cases(seed: int, count: int, base: Base) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for n in range(count):
        draw = rng.random()
        if draw < 0.55:
            cases.append(_reader_case(rng, base, n))
        elif draw < 0.8:
            cases.append(_argument_case(rng, n))
        else:
            cases.append(_name_case(rng, base, n))
    return cases


# --- running and judging ------------------------------------------------------------------------------

_RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_LEFTOVER = re.compile(r"^\..+\.[a-z0-9_]{8}\.(tmp|new|old)$")


def _fill(text: str, folder: Path) -> str:
    return text.replace("{dir}", str(folder))


def _prepare(case: Case, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in case.folders:
        (folder / name).mkdir(exist_ok=True)
    for name, data in case.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    for link, target in case.links.items():
        os.symlink(target, folder / link)


def judge(case: Case, folder: Path, code: int, stdout: str, stderr: str) -> list[str]:
    defects = []
    if code not in (0, 1, 2) or "Traceback" in stderr or "internal error" in stderr:
        defects.append("internal")
    if code in (1, 2) and not stderr.strip():
        defects.append("silent")
    if _RAW_CONTROL.search(stdout) or _RAW_CONTROL.search(stderr):
        defects.append("raw control")
    output = Path(_fill(case.output, folder)) if case.output else None
    if code != 0 and output is not None and os.path.lexists(output):
        defects.append("leftover")
    for _, dirnames, filenames in os.walk(folder):
        if any(_LEFTOVER.match(n) for n in dirnames + filenames):
            defects.append("leftover")
            break
    for link in case.links:
        if not (folder / link).is_symlink():
            defects.append("link replaced")
    if code == 0 and case.argv[0] == "export":
        out = Path(_fill(case.argv[case.argv.index("-o") + 1], folder))
        files = [p for p in out.rglob("*") if p.is_file()] if out.is_dir() else [out] if out.exists() else []
        if any(b"\x00" in p.read_bytes() for p in files):
            defects.append("binary export")
    return defects


def _run_here(cases: list[Case], workdir: Path) -> list[Outcome]:
    """Run the cases in this process, one after another (called in the capped child)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from designer.catalog.loader import default_catalog
    from designer.cli.main import main

    outcomes = []
    for case in cases:
        folder = workdir / case.name
        _prepare(case, folder)
        saved_env = {k: os.environ.get(k) for k in case.env}
        os.environ.update({k: _fill(v, folder) for k, v in case.env.items()})
        default_catalog.cache_clear()   # a user catalog case reads its own folder
        out, err = io.StringIO(), io.StringIO()
        started = time.perf_counter()
        try:
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main([_fill(a, folder) for a in case.argv])
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 2
        except BaseException as exc:  # anything escaping main() is a defect of the command line
            code = 99
            err.write(f"Traceback: {type(exc).__name__}: {exc}")
        seconds = time.perf_counter() - started
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        default_catalog.cache_clear()
        outcomes.append(Outcome(case.name, code, out.getvalue(), err.getvalue(), seconds,
                                judge(case, folder, code, out.getvalue(), err.getvalue())))
    return outcomes


def _cap_memory(limit: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_cases(cases: list[Case], workdir: Path, per_process: int = 1, memory_cap: int = MEMORY_CAP,
              jobs: int = 1) -> list[Outcome]:
    """Run the cases in fresh processes of `per_process` cases each, under `memory_cap` bytes of
    address space and SECONDS_PER_CASE a case; a process that dies marks its unfinished cases
    internal errors."""
    batches = [cases[i:i + per_process] for i in range(0, len(cases), per_process)]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    env.pop("FABRIC_DESIGNER_DEBUG", None)
    running: list[tuple[subprocess.Popen[bytes], list[Case], Path, float]] = []
    outcomes: list[Outcome] = []

    def finish(proc: subprocess.Popen[bytes], batch: list[Case], result: Path, started: float) -> None:
        try:
            done = pickle.loads(result.read_bytes()) if proc.returncode == 0 else []
        except (OSError, pickle.UnpicklingError, EOFError):
            done = []
        outcomes.extend(done)
        names = {o.name for o in done}
        stderr = proc.stderr.read().decode(errors="replace")[-300:] if proc.stderr else ""
        for case in batch:
            if case.name not in names:
                outcomes.append(Outcome(case.name, proc.returncode if proc.returncode is not None else -9, "",
                                        f"process died: {stderr}", time.monotonic() - started, ["internal"]))

    pending = list(batches)
    while pending or running:
        while pending and len(running) < jobs:
            batch = pending.pop(0)
            spec = workdir / f"batch-{batch[0].name}.pickle"
            result = spec.with_suffix(".result")
            spec.write_bytes(pickle.dumps(batch))
            proc = subprocess.Popen([sys.executable, __file__, "run", str(spec), str(result), str(workdir),
                                     str(memory_cap)], env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE)
            running.append((proc, batch, result, time.monotonic()))
        time.sleep(0.05)
        for item in list(running):
            proc, batch, result, started = item
            if proc.poll() is None and time.monotonic() - started > SECONDS_PER_CASE * len(batch):
                proc.kill()
                proc.wait()
            if proc.poll() is not None:
                running.remove(item)
                finish(proc, batch, result, started)
    return outcomes


def summarize(outcomes: list[Outcome]) -> dict[str, object]:
    defects = Counter(d for o in outcomes for d in o.defects)
    return {"cases": len(outcomes), "worked": sum(o.code == 0 for o in outcomes),
            "refused": sum(o.code in (1, 2) for o in outcomes), "defects": dict(defects),
            "slowest_s": round(max((o.seconds for o in outcomes), default=0.0), 2),
            "failing": [f"{o.name}: {', '.join(o.defects)}: {o.stderr.strip()[:200]!r}"
                        for o in outcomes if o.defects][:20]}


def _child(spec: str, result: str, workdir: str, memory_cap: str) -> None:
    _cap_memory(int(memory_cap))
    sys.path.insert(0, str(ROOT))
    cases = pickle.loads(Path(spec).read_bytes())
    outcomes = _run_here(cases, Path(workdir))
    with tempfile.NamedTemporaryFile(dir=Path(result).parent, delete=False) as fh:
        fh.write(pickle.dumps(outcomes))
    os.replace(fh.name, result)


if __name__ == "__main__" and len(sys.argv) == 6 and sys.argv[1] == "run":
    # Imported by its module name, so that the outcomes unpickle in the parent as they pickle here.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import hostile_campaign

    hostile_campaign._child(*sys.argv[2:])
