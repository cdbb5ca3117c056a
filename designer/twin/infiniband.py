"""The design on the real InfiniBand stack: ibsim simulates it, OpenSM routes it, ibnetdiscover captures it.

One run, in a private folder that is removed afterwards:

1. the design is written as ibnetdiscover text (the simulator's fabric) and as the `opensm`
   export's folder (designer/io/opensm.py): the GUID files and opensm.conf the run uses are
   exactly what `export --format opensm` writes;
2. `ibsim` loads the fabric on a private abstract socket (`IBSIM_SOCKNAME`, unique per run, so
   runs side by side never meet); faults are typed into its console;
3. `opensm -o -F opensm.conf` (preloaded with umad2sim) routes it once and exits; its log says
   which engine configured the tables, and at log flag 0x40 it dumps them (`opensm-lfts.dump`);
4. with `capture`, the real `ibnetdiscover` walks the simulated fabric;
5. every process is stopped (designer/twin/processes.py) on success, error, Ctrl-C or timeout.

The tables are then read into model data and the three traffic patterns are loaded on them
(designer/model/performance/static_routes.py).
"""

from __future__ import annotations

import dataclasses
import glob
import re
import shutil
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from designer.catalog import Catalog, default_catalog
from designer.io.atomic import write_atomic
from designer.io.export_source import ExportSource
from designer.io.ibnetdiscover import SIMULATED_MARK, export_ibnetdiscover, parse_ibnetdiscover
from designer.io.opensm import CONF, ENGINES, design_engine, opensm_files_of, subnet_guids
from designer.limits import read_capped, read_text
from designer.model.intent.design import FabricDesign
from designer.model.performance.static_routes import StaticRoutingLoad, static_routing_load
from designer.twin.faults import (
    SIM_RATE,
    FabricIndex,
    Fault,
    FaultError,
    check_disjoint,
    parse_fault,
    simulator_fabric,
)
from designer.twin.processes import Processes, TwinCancelled, TwinError
from designer.twin.tables import TableError, read_tables

PACKAGES = "ibsim-utils opensm infiniband-diags"
INSTALL = f"apt-get install {PACKAGES}"
# One LID per switch and per CA port, from InfiniBand's unicast range 0x0001-0xBFFF: the
# simulator's forwarding tables are sized to it with -L (ibsim's default, MAXLINEARCAP in
# ibsim/sim.h, is 30,720; it accepts up to 49,152), so this is the largest fabric it holds.
SIM_MAX_LIDS = 0xBFFF
SIM_SPEED = SIM_RATE      # every link in the simulator, whatever the design's speed
SLOWED_SHARE = 0.25       # a width or speed fault: 1x of 4x lanes, or SDR's 2.5 of QDR's 10 Gb/s per lane
DUMP_LIMIT = 4 * 2**30


def preload_library() -> str | None:
    found = sorted(glob.glob("/usr/lib/*/umad2sim/libumad2sim.so") + glob.glob("/usr/lib/umad2sim/libumad2sim.so"))
    return found[0] if found else None


def missing_stack(capture: bool = True) -> str | None:
    """One line naming the Debian packages to install, or None when the stack is here."""
    missing = [p for p, prog in (("ibsim-utils", "ibsim"), ("opensm", "opensm")) if not shutil.which(prog)]
    if not preload_library() and "ibsim-utils" not in missing:
        missing.append("ibsim-utils")
    if capture and not shutil.which("ibnetdiscover"):
        missing.append("infiniband-diags")
    if not missing:
        return None
    return (f"the InfiniBand stack is not installed ({', '.join(missing)} missing): "
            f"install it with `sudo {INSTALL}`")


@dataclass(frozen=True)
class TwinOptions:
    engine: str | None = None       # None: the routing engine the design names, else ftree
    timeout: float = 300.0
    faults: tuple[str, ...] = ()
    capture: Path | None = None
    loads: bool = True
    route: bool = True              # run OpenSM; without it, only the capture (ibnetdiscover needs no SM)


@dataclass
class TwinResult:
    design: str
    engine: str
    routed_by: str                  # the engine that configured the tables
    routed: bool                    # the chosen engine routed the fabric
    reason: str                     # why it fell back, in words ("" when it routed)
    subnet_up: bool
    seconds_to_route: float         # the SM's routing and programming, from its log
    seconds_to_subnet_up: float     # from OpenSM's start to SUBNET UP, wall clock
    switches: int
    cas: int
    lids: int
    faults: list[Fault] = field(default_factory=list)
    capture: str | None = None
    load: StaticRoutingLoad | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"design": self.design, "engine": self.engine, "routed_by": self.routed_by, "routed": self.routed,
                "fallback_reason": self.reason or None, "subnet_up": self.subnet_up,
                "seconds_to_route": round(self.seconds_to_route, 3),
                "seconds_to_subnet_up": round(self.seconds_to_subnet_up, 3),
                "fabric": {"switches": self.switches, "cas": self.cas, "lids": self.lids},
                "faults": [f.to_json() for f in self.faults], "capture": self.capture,
                "simulated_link_speed": SIM_SPEED,
                "load": self.load.to_json() if self.load else None, "notes": self.notes}


# --- OpenSM's log, in words ------------------------------------------------------------------------

_CONFIGURED = re.compile(r"osm_ucast_mgr_process: (\S+) tables configured on all switches")
_FAILED = re.compile(r"ucast_mgr_route: (\S+): cannot build lid matrices")
_ERR = re.compile(r"-> (\w+): ERR ([0-9A-F]{4}): (.*)")
_STAMP = re.compile(r"^\w{3} [ \d]\d (\d\d):(\d\d):(\d\d) (\d{6})")
_REASONS = {
    "AB2B": "found more than one candidate root among the top-tier switches (no root GUID file)",
    "AB24": "was given a root GUID that is not in the fabric",
    "AB25": "found none of the root GUIDs in the fabric",
    "AB16": "found two switches linked across more than one tier",
    "AB11": "found a CA cabled to another CA",
}


def fallback_reason(log: str, engine: str) -> str:
    """Why `engine` did not route, in words: OpenSM's error, or what its silence means."""
    for m in _ERR.finditer(log):
        if m.group(2) in _REASONS:
            return f"{engine} {_REASONS[m.group(2)]}"
    errors = [m for m in _ERR.finditer(log) if "cannot open file" not in m.group(3)]
    if errors:
        return f"{engine} stopped in {errors[0].group(1)}: {errors[0].group(3).strip()}"
    if engine == "ftree":
        return ("ftree could not rank the fabric as a fat tree: a CA it takes for a compute node hangs "
                "from a switch that is not a leaf, or a switch is linked across tiers")
    return f"{engine} could not route the fabric"


def _seconds(line: str) -> float | None:
    m = _STAMP.match(line)
    if not m:
        return None
    h, mi, s, us = (int(g) for g in m.groups())
    return h * 3600 + mi * 60 + s + us / 1e6


def routing_seconds(log: str) -> float:
    """From entering MASTER state (discovery done) to the tables configured, by the log's clock."""
    start = end = None
    for line in log.splitlines():
        if start is None and "Entering MASTER state" in line:
            start = _seconds(line)
        elif "tables configured on all switches" in line:
            end = _seconds(line)
    if start is None or end is None:
        return 0.0
    return max(0.0, (end - start) % 86400)


# --- the run ----------------------------------------------------------------------------------------

Progress = Callable[[str], None]


def run_infiniband_twin(design: FabricDesign, catalog: Catalog | None = None, options: TwinOptions | None = None,
                        cancel: threading.Event | None = None, progress: Progress | None = None) -> TwinResult:
    """Bring the design up on ibsim, route it with OpenSM, optionally capture it; every process stopped."""
    options = options or TwinOptions()
    if options.engine is None:
        options = dataclasses.replace(options, engine=design_engine(design))
    say = progress or (lambda _msg: None)
    if options.engine not in ENGINES:
        raise TwinError(f"unknown routing engine '{options.engine}' (OpenSM has {', '.join(ENGINES)})")
    missing = missing_stack(capture=options.capture is not None)
    if missing:
        raise TwinError(missing)
    catalog = catalog or default_catalog()
    src = ExportSource(design, catalog)     # the exports' host names: the capture's and the audit's
    derived = src.derived
    if derived.resolved.family != "infiniband":
        raise TwinError("the InfiniBand twin needs an InfiniBand design; "
                        f"this one is {derived.resolved.technology.name}")
    errors = derived.metrics.errors
    if errors:
        raise TwinError(f"the design has errors ({errors[0].message}); fix them first")
    topology = export_ibnetdiscover(derived, host_name=src.host)
    fabric = parse_ibnetdiscover(topology, "the design's fabric")
    switches = sum(1 for d in fabric.devices.values() if d.kind == "switch")
    cas = len(fabric.devices) - switches
    lids = len(fabric.devices)
    if lids > SIM_MAX_LIDS:
        per_server = max(1, cas // max(1, len({d.host for d in fabric.devices.values() if d.host})))
        raise TwinError(f"the fabric needs {lids:,} LIDs ({switches:,} switches, {cas:,} CAs); the simulator's "
                        f"forwarding tables and InfiniBand's unicast LID range hold {SIM_MAX_LIDS:,}, about "
                        f"{(SIM_MAX_LIDS - switches) // per_server:,} servers of {per_server} NIC ports at this "
                        "switch count")
    index = FabricIndex(fabric)
    try:
        faults = [parse_fault(text, index) for text in options.faults]
        check_disjoint(faults)
    except FaultError as exc:
        raise TwinError(str(exc)) from None
    guids = subnet_guids(derived, src.host)
    touched = {d for f in faults for d in f.devices} | {e for f in faults for a, _, b, _ in f.links for e in (a, b)}
    attach = next((f"H-{g}" for g in guids.compute_nodes if f"H-{g}" not in touched), None)
    if attach is None:
        raise TwinError("every compute HCA is faulted: the tools have no port to attach to")
    deadline = time.monotonic() + options.timeout
    with Processes(deadline, cancel) as run:
        folder = run.folder
        write_atomic(folder / "fabric.topo", simulator_fabric(topology, faults))
        sm_dir = folder / "opensm"
        sm_dir.mkdir()
        for name, text in opensm_files_of(derived, options.engine, src.host).items():
            write_atomic(sm_dir / name, text)
        sock = f"fabric-twin-{uuid.uuid4().hex[:12]}"
        env = {"IBSIM_SOCKNAME": sock, "SIM_HOST": attach}
        say("starting the simulator")
        linear_cap = min(SIM_MAX_LIDS + 1, (lids // 64 + 2) * 64)     # whole 64-LID blocks
        sim = run.start(["ibsim", "-s", "-N", str(cas + switches + 16), "-S", str(switches + 16),
                         "-L", str(max(linear_cap, 1024)),
                         "-P", str(sum(d.ports + 1 for d in fabric.devices.values()) + 64),
                         str(folder / "fabric.topo")], "ibsim.log", env, stdin=True)
        try:
            run.wait_for(lambda: _socket_listening(f"{sock}:ctl") and "sim>" in run.read_log("ibsim.log"),
                         "the simulator did not come up", alive=sim)
        except TwinCancelled:
            raise
        except TwinError as exc:
            said = [ln for ln in run.read_log("ibsim.log").splitlines() if "ibpanic" in ln or "ERR" in ln]
            why = said[-1].split(": ", 2)[-1].removesuffix(": Success")[:160] if said else ""
            raise TwinError(f"{exc}" + (f" (ibsim: {why})" if why else "")) from None
        lines = [c for f in faults for c in f.commands]
        if lines:
            say(f"applying {len(faults)} fault(s)")
            prompts = run.read_log("ibsim.log").count("sim>")
            assert sim.stdin is not None
            sim.stdin.write(("\n".join(lines) + "\n").encode())
            sim.stdin.flush()
            run.wait_for(lambda: run.read_log("ibsim.log").count("sim>") >= prompts + len(lines),
                         "the simulator's console did not take the faults", alive=sim)
        preload = preload_library() or ""
        result = TwinResult(design.meta.name, options.engine, "", False, "not routed: capture only", False,
                            0.0, 0.0, switches, cas, lids, faults)
        if options.route:
            say(f"routing with OpenSM ({options.engine})")
            _route(run, result, sm_dir, {**env, "LD_PRELOAD": preload})
        if options.capture is not None:
            say("capturing with ibnetdiscover")
            cap = run.start(["ibnetdiscover"], "capture.txt", {**env, "LD_PRELOAD": preload})
            code = run.wait_exit(cap, "ibnetdiscover did not finish")
            text = read_text(run.log_path("capture.txt"), "ibnetdiscover's output", limit=DUMP_LIMIT)
            if code != 0 or not text.strip():
                raise TwinError(f"ibnetdiscover failed (code {code})")
            write_atomic(options.capture, capture_header(design.meta.name, faults) + _without_stderr(text))
            result.capture = str(options.capture)
        if options.loads and options.route:
            say("loading the traffic patterns on the forwarding tables")
            try:
                dump = read_capped(folder / "opensm-lfts.dump", DUMP_LIMIT, "OpenSM's forwarding-table dump")
            except Exception as exc:   # noqa: BLE001 - any unreadable dump is one line
                raise TwinError(f"OpenSM wrote no forwarding tables ({exc})") from None
            down = [end for f in faults for end in f.down]
            # 1x of 4x, or SDR of QDR: a quarter of the link's rate, on the design's speed.
            slowed = {(e, p): SLOWED_SHARE for f in faults if f.rate for a, pa, b, pb in f.links
                      for e, p in ((a, pa), (b, pb))}
            try:
                tables = read_tables(dump, fabric, [f"H-{g}" for g in guids.compute_nodes], list(guids.placement),
                                     guids.nic_gbps, down, slowed)
            except TableError as exc:
                raise TwinError(str(exc)) from None
            result.load = static_routing_load(tables)
        result.notes.append(f"the simulator runs every link at {SIM_SPEED}; loads use the design's speeds")
        return result


def _route(run: Processes, result: TwinResult, sm_dir: Path, env: dict[str, str]) -> None:
    """Run `opensm -o` in the export's folder; fill in which engine routed, why not, and how long."""
    folder = run.folder
    started = time.monotonic()
    # OpenSM keeps guid2lid, guid2mkey and neighbors in OSM_CACHE_DIR (default /var/cache/opensm):
    # a run's own, or runs side by side would read each other's LIDs (and touch the system's).
    cache = folder / "cache"
    cache.mkdir(exist_ok=True)
    sm = run.start(["opensm", "-o", "-F", CONF, "-f", str(folder / "opensm.log"), "-D", "0x43",
                    "--dump_files_dir", str(folder)], "opensm.out", {**env, "OSM_CACHE_DIR": str(cache)},
                   cwd=sm_dir)
    code = run.wait_exit(sm, "OpenSM did not bring the subnet up")
    result.seconds_to_subnet_up = time.monotonic() - started
    log = run.read_log("opensm.log")
    if code != 0 or "SUBNET UP" not in log:
        tail = run.read_log("opensm.out").strip().splitlines()
        raise TwinError(f"OpenSM exited (code {code}) without bringing the subnet up"
                        + (f": {tail[-1][:160]}" if tail else ""))
    configured = _CONFIGURED.findall(log)
    result.routed_by = configured[-1] if configured else "default"
    result.routed = result.routed_by == result.engine
    result.reason = "" if result.routed else fallback_reason(log, result.engine)
    result.subnet_up = True
    result.seconds_to_route = routing_seconds(log)


def capture_header(name: str, faults: list[Fault]) -> str:
    lines = [f"{SIMULATED_MARK} this capture is of the ibsim simulator, which runs every link at "
             f"{SIM_SPEED} (the fastest it knows) unless a fault slowed it; the audit judges speeds against that",
             f"# Twin of \"{name.replace(chr(10), ' ')[:120]}\" captured by ibnetdiscover"]
    lines += [f"# fault: {f.target}" for f in faults]
    return "\n".join(lines) + "\n"


def _without_stderr(text: str) -> str:
    # umad2sim's attach warning goes to stderr, which the log shares: keep the capture itself.
    return "\n".join(line for line in text.splitlines() if not line.startswith("ibwarn:")) + "\n"


def _socket_listening(name: str) -> bool:
    """Is an abstract unix socket named `name` bound (the simulator's control socket)?"""
    try:
        table = read_text("/proc/net/unix", "the socket table", limit=256 * 2**20)
    except Exception:   # noqa: BLE001 - no /proc: rely on the console prompt alone
        return True
    return f"@{name}" in table
