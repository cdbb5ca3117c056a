"""The audit as a technician reads it: a summary with counts first, then the detail grouped by
device, sorted by SU (group) and port. The command line and the window's Audit panel print the
same lines from here."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from designer.model.topology.asbuilt import natural_key

# The summary's lines, in the order a technician walks the floor.
SECTIONS = (("absent_switches", "Absent switches"), ("absent_servers", "Absent servers"),
            ("missing_uplinks_by_leaf", "Missing uplinks"), ("host_ports_down_by_server", "Host ports down"),
            ("swapped", "Swapped or crossed cables"), ("miswired", "Miswired cables"),
            ("extra_links", "Extra links"), ("degraded_links", "Degraded links"),
            ("unnamed_devices", "Unnamed devices"))


def _server(e: dict[str, Any]) -> str:
    return str(e["a"]["device"]).split()[0] if e["a"]["device"] else str(e["a"]["design_id"])


def summarise(report: Any, _down: Any = None, _missing: Any = None) -> dict[str, Any]:
    """Counts and the devices they concern, per section (JSON key `summary`)."""
    out: dict[str, Any] = {}
    out["absent_switches"] = [{"device": e["device"], "tier": e["tier"], "su": e["su"], "rail": e["rail"],
                               "links": e["links"]} for e in report.missing_devices if e["tier"] != "server"]
    out["absent_servers"] = [{"server": e["device"], "su": e["su"], "ports": e.get("ports", e["links"])}
                             for e in report.missing_devices if e["tier"] == "server"]
    uplinks: dict[str, dict[str, Any]] = {}
    down: dict[str, dict[str, Any]] = {}
    for e in report.missing_links:
        if e.get("reason") == "host port down":
            entry = down.setdefault(_server(e), {"server": _server(e), "su": e["a"]["su"], "ports": []})
            entry["ports"].append(str(e["a"]["device"]).split(maxsplit=1)[-1])
        else:
            entry = uplinks.setdefault(e["a"]["device"], {"leaf": e["a"]["device"], "tier": e["a"]["tier"],
                                                          "su": e["a"]["su"], "rail": e["a"]["rail"], "missing": 0})
            entry["missing"] += 1
    out["missing_uplinks_by_leaf"] = sorted(uplinks.values(), key=lambda e: (e["su"] or 0, natural_key(e["leaf"])))
    out["host_ports_down_by_server"] = sorted(down.values(), key=lambda e: (e["su"] or 0, natural_key(e["server"])))
    kinds = Counter(s["kind"] for s in report.swapped)
    out["swapped"] = {"swaps": kinds["swap"], "crossed": kinds["crossed"]}
    out["miswired"] = len(report.miswired)
    out["extra_links"] = len(report.extra_links)
    out["degraded_links"] = len(report.degraded_links)
    unnamed = Counter("attributed" if "attributed_to" in e else "unplaced" if "leaf" in e else "other"
                      for e in report.unnamed_devices)
    out["unnamed_devices"] = {"attributed": unnamed["attributed"], "unplaced": unnamed["unplaced"],
                              "other": unnamed["other"]}
    aside = Counter(e["kind"] for e in report.set_apart)
    out["set_apart"] = {"aggregation_nodes": aside["aggregation node"], "management_hcas": aside["management HCA"]}
    return out


WIDTH = 116     # a summary line fits a terminal of 120 columns with its indent


def _names(items: list[str], room: int = 6, width: int = 70) -> str:
    """The first few names, as many as fit `width` characters, then how many more."""
    room = min(room, len(items))
    while True:
        shown = ", ".join(items[:room])
        more = f" and {len(items) - room:,} more" if len(items) > room else ""
        if room <= 1 or len(shown) + len(more) <= width:
            return shown + more
        room -= 1


def _where(e: dict[str, Any]) -> str:
    parts = [f"SU {e['su']}" if e.get("su") else "", f"rail {e['rail']}" if e.get("rail") else ""]
    return "; ".join(p for p in parts if p)


def _swap_text(sw: dict[str, Any]) -> str:
    arrow = " \u21c4 "
    if sw["kind"] == "swap":
        return f"{sw['server']} ({arrow.join(sw.get('labels', []))})"
    return f"{sw['a']['device']}{arrow}{sw['b']['device']}"


def summary_counts(summary: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(section key, label, count) for every section, in summary order."""
    out = []
    for key, label in SECTIONS:
        value = summary.get(key, [])
        if key == "missing_uplinks_by_leaf":
            n = sum(e["missing"] for e in value)
        elif key == "host_ports_down_by_server":
            n = sum(len(e["ports"]) for e in value)
        elif key == "swapped":
            n = value.get("swaps", 0) + value.get("crossed", 0)
        elif key == "unnamed_devices":
            n = value.get("unplaced", 0) + value.get("other", 0) + value.get("attributed", 0)
        elif isinstance(value, list):
            n = len(value)
        else:
            n = int(value)
        out.append((key, label, n))
    return out


def summary_lines(report: Any) -> list[str]:
    """One line per section: its count and the first few devices it concerns."""
    s = report.summary
    lines = []
    for key, label, n in summary_counts(s):
        text = f"{label}: {n:,}"
        if key == "absent_switches" and n:
            text += " \u2014 " + _names([f"{e['device']}" + (f" ({_where(e)})" if _where(e) else "")
                                         for e in s[key]], 4)
        elif key == "absent_servers" and n:
            text += " \u2014 " + _names([e["server"] for e in s[key]])
        elif key == "missing_uplinks_by_leaf" and n:
            text += f" on {len(s[key])} switch(es) \u2014 " + _names(
                [f"{e['leaf']} ({e['missing']})" for e in s[key]], 5)
        elif key == "host_ports_down_by_server" and n:
            text += f" on {len(s[key])} server(s) \u2014 " + _names(
                [f"{e['server']} ({', '.join(e['ports'])})" for e in s[key]], 3)
        elif key == "swapped" and n:
            text += f" ({s[key]['swaps']} swap(s), {s[key]['crossed']} crossed pair(s)) \u2014 " + _names(
                [_swap_text(sw) for sw in report.swapped], 4)
        elif key == "unnamed_devices" and n:
            u = s[key]
            parts = [f"{u['attributed']:,} HCA(s) placed by their leaf port" if u["attributed"] else "",
                     f"{u['unplaced']:,} HCA(s) no position explains" if u["unplaced"] else "",
                     f"{u['other']:,} with a default description" if u["other"] else ""]
            text += f" ({', '.join(p for p in parts if p)})"
        if len(text) > WIDTH:                 # one name longer than a line: cut it, say so
            text = text[:WIDTH - 1] + "\u2026"
        lines.append(text)
    aside = s.get("set_apart", {})
    if aside.get("aggregation_nodes") or aside.get("management_hcas"):
        lines.append(f"Set apart (not in the design): {aside.get('aggregation_nodes', 0):,} aggregation node(s), "
                     f"{aside.get('management_hcas', 0):,} management HCA(s)")
    return lines


def _end(e: dict[str, Any]) -> str:
    return f"{e['device']}" + (f" port {e['port']}" if e.get("port") is not None else "")


def describe(kind: str, e: dict[str, Any]) -> str:
    """One finding in one line."""
    if kind == "swapped":
        return str(e["reason"])
    if kind == "missing_devices":
        what = f"{e['links']} link(s)" if e["tier"] != "server" else f"{e.get('ports', e['links'])} port(s)"
        if e["tier"] == "server" and e.get("leaf_port"):
            what += f" on leaf port {e['leaf_port']}"
        elif e.get("host_ports"):
            what += f": {e['host_ports']} host ports, {e.get('uplinks', 0)} uplinks"
        return f"{e['tier']} {e['device']} absent ({what})"
    if kind == "unnamed_devices":
        if "attributed_to" in e:
            return (f"default-named HCA '{e['description'].strip()}' placed as {e['server']}'s rail {e['rail']} "
                    "HCA by its leaf port" if e.get("rail") else
                    f"default-named HCA '{e['description'].strip()}' placed as {e['server']} by its leaf port")
        return str(e["device"]) + (f" ('{e['description'].strip()}')" if "leaf" in e and e.get("description") else "")
    text = f"{_end(e['a'])} -- {_end(e['b'])}"
    for key in ("pair_links", "as_built", "reason"):
        if e.get(key):
            text += f"; {key.replace('_', ' ')}: {e[key]}" if key != "reason" else f"; {e[key]}"
    return text


def detail_groups(report: Any) -> list[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """Findings grouped by the device to visit (a server or a switch), sorted by SU and port."""
    groups: dict[tuple[Any, ...], list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for kind, e in report.rows():
        a = e.get("a", e)
        if kind == "unnamed_devices" and "server" in e:
            device = str(e["server"])
        elif a.get("tier") == "server" and kind != "missing_devices":
            device = str(a["device"]).split()[0]
        else:
            device = str(a.get("device") or e.get("leaf") or "")
        groups[(a.get("su") or 0, tuple(natural_key(device)), device)].append((kind, e))
    out = []
    for (su, _, device), rows in sorted(groups.items(), key=lambda t: t[0][:2]):
        rows.sort(key=lambda r: (r[1].get("a", r[1]).get("port") or 0))
        out.append(((f"SU {su} \u00b7 " if su else "") + device, rows))
    return out


def detail_lines(report: Any, limit: int | None = None) -> list[str]:
    lines = []
    for header, rows in detail_groups(report):
        lines.append(header)
        lines += [f"  {kind.replace('_', ' ')}: {describe(kind, e)}" for kind, e in rows]
        if limit is not None and len(lines) >= limit:
            lines = lines[:limit] + ["  ... (see --csv or --json for every finding)"]
            break
    return lines


def inferred_lines(report: Any, width: int = 110) -> list[str]:
    """The inferred figures as the CLI and the window's Audit panel print them, wrapped."""
    facts = report.inferred.get("facts", [])
    if not facts:
        return []
    parts = [f"{f['subject']} {f['value']} ({f['confidence']})" for f in facts]
    lines: list[str] = []
    line = "Inferred:"
    for part in parts:
        if len(line) + len(part) + 2 > width:
            lines.append(line)
            line = "   "
        line += (" " if line.endswith(":") or line == "   " else "; ") + part
    return lines + [line]
