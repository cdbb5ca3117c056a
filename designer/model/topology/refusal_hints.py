"""What would build a refused request: the alternatives that size, each tried, never guessed.

A refusal ("32,768 GPUs need 128 pods, but three tiers of QM9700 hold at most 64 pods") is only
half an answer; the user wants to know what to change. The window and `new` ask this module,
which tries the usual ways out in order (the fat-tree template, a third tier, a larger switch of
the same technology, another plane) and names those that size. The caller says how to build a
request with changes, so the same hints serve the command line's options and the Inspector.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from designer.catalog import Catalog, Technology

# A request with these fields changed sizes (True) or is refused (False).
Builds = Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True)
class Alternative:
    changes: dict[str, Any]   # the request's fields changed: template, tiers, switch, planes
    option: str               # as the command line takes it: "--template fat-tree"
    words: str                # as the window says it: "the fat-tree template"


def _larger_switches(catalog: Catalog, tech: Technology, current: str | None) -> list[Any]:
    """The technology's switches with more ports at its switch-to-switch speed than `current`."""
    gbps = tech.uplink_gbps
    try:
        now = catalog.switch(current or tech.default_switch).ports_at(gbps)
    except KeyError:
        now = 0
    ids = {*tech.switch_options, tech.default_switch}
    family = [s for s in catalog.switches.values()
              if s.family == tech.family and not s.stand_in and not s.fabric_element and s.ports_at(gbps) > now]
    chosen = [catalog.switches[i] for i in ids if i in catalog.switches and catalog.switches[i].ports_at(gbps) > now]
    seen: dict[str, Any] = {s.id: s for s in chosen + family}
    return sorted(seen.values(), key=lambda s: (s.status not in ("", "shipping"), s.ports_at(gbps), s.id))


def what_would_build(catalog: Catalog, tech: Technology, *, template: str, tiers: int | None,
                     switch: str | None, planes: int, builds: Builds, limit: int = 2) -> list[Alternative]:
    """Up to `limit` alternatives that size, the least change first."""
    tries: list[Alternative] = []
    if template != "fat-tree":
        tries.append(Alternative({"template": "fat-tree", "tiers": None}, "--template fat-tree",
                                 "the fat-tree template"))
    if tiers is not None and tiers < 3:
        tries.append(Alternative({"tiers": 3}, "--tiers 3", f"a 3-tier {template} design"))
    for sw in _larger_switches(catalog, tech, switch)[:3]:
        tries.append(Alternative({"switch": sw.id}, f"--switch {sw.id}", f"a larger switch ({sw.name})"))
    if planes < 8:
        tries.append(Alternative({"planes": planes * 2}, f"--planes {planes * 2}", f"{planes * 2} planes"))
    found: list[Alternative] = []
    for alternative in tries:
        if len(found) >= limit:
            break
        try:
            ok = builds(alternative.changes)
        except Exception:  # noqa: BLE001 - any refusal of the alternative means it does not build
            ok = False
        if ok:
            found.append(alternative)
    return found


def hint_text(found: list[Alternative], *, command_line: bool) -> str:
    """'what builds it: --template fat-tree, or --tiers 3' / 'The fat-tree template would build it.'; ''."""
    if not found:
        return ""
    names = [a.option if command_line else a.words for a in found]
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + ", or " + names[-1]
    return f"what builds it: {joined}" if command_line else f"{joined[0].upper()}{joined[1:]} would build it."
