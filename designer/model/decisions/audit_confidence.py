"""How sure the audit is of each finding, and why: every finding carries `confidence` (high,
medium, low) and `why` (JSON keys added to each finding).

A finding read straight off the capture (a rate on a port line, a switch cabled to itself) is as
sure as the capture. A finding that compares the capture with a design is as sure as that
design: against the user's design, as sure as the rule; against the inferred design, no surer
than the inference of its template. Without any design, a missing uplink is read from the
fabric's own symmetry (the other leaf-spine pairs), which is a heuristic and says so.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from designer.model.topology.asbuilt import Link

Json = dict[str, Any]
_LOWER = {"high": "medium", "medium": "low", "low": "low"}


def _grade(kind: str, e: Json) -> tuple[str, str]:
    if "confidence" in e:                                 # graded where it was found
        return e["confidence"], e.get("why", "")
    if kind == "missing_devices":
        if e.get("tier") == "server":
            return "high", (f"none of its {e.get('ports', e.get('links'))} HCAs is in the capture, and the "
                            "leaf ports the design gives them hold no other HCA")
        return "high", (f"no switch in the capture sits where the design has this {e.get('tier')}; "
                        f"its {e.get('links')} links are missing with it (not listed one by one)")
    if kind == "missing_links":
        if e.get("reason") == "host port down":
            return "high", "the server's other HCAs are in the capture; this one has no link"
        return "high", f"the design gives {str(e.get('pair_links', '')).split(' of ')[-1]} links between these switches"
    if kind == "swapped":
        return "high", "each HCA sits on the leaf port the design gives the other"
    if kind == "miswired":
        if e.get("reason") == "switch cabled to itself":
            return "high", "both ends of the link are on the same switch in the capture"
        return "medium", "the design's wiring rule places this cable elsewhere: " + str(e.get("reason", ""))
    if kind == "extra_links":
        return "medium", "the design's wiring rule has no place for this link"
    if kind == "degraded_links":
        if "most common" in str(e.get("designed", "")):
            # Without a design: slower than most links of its tier, which an older card or cable
            # running at its own top rate also is.
            return "medium", (f"the capture reports {e.get('as_built')}, slower than most links of its tier "
                              f"({str(e.get('designed')).split()[0]}); no design says what it should run")
        return "high", f"the capture reports {e.get('as_built')} where {e.get('designed')} is expected"
    if kind == "unnamed_devices":
        if "attributed_to" in e:
            return "medium", "a factory-default description: placed by the leaf port it is on"
        return "low", "a factory-default description and no leaf port of the design explains it"
    return "medium", ""


def grade(report: Any, template_confidence: str | None) -> None:
    """Add `confidence` and `why` to every finding of `report`. `template_confidence` is the
    inferred template's when the audit is against the inferred design, else None."""
    for kind, e in report.rows():
        confidence, why = _grade(kind, e)
        if template_confidence and template_confidence != "high" and "design" in why and kind != "degraded_links":
            confidence = _LOWER[confidence] if template_confidence == "medium" else "low"
            why += f"; the design is inferred ({template_confidence} confidence in its template)"
        e["confidence"], e["why"] = confidence, why


def missing_by_symmetry(links: list[Link], roles: dict[str, str], name: dict[str, str]) -> list[Json]:
    """Without a design: leaf-spine pairs with fewer parallel links than nearly every other pair
    (the loginoff capture's ib1-ib8, 3 of 4), on a leaf whose other pairs have that count. Only
    where at least 3 in 4 pairs agree on a count of 2 or more, so a fabric cabled unevenly on
    purpose yields nothing."""
    pairs: Counter[tuple[str, str]] = Counter()
    for w in links:
        ra, rb = roles.get(w.a), roles.get(w.b)
        if {ra, rb} == {"leaf", "spine"}:
            pairs[(w.a, w.b) if ra == "leaf" else (w.b, w.a)] += 1
    if len(pairs) < 4:
        return []
    usual, agree = Counter(pairs.values()).most_common(1)[0]
    if usual < 2 or 4 * agree < 3 * len(pairs):
        return []
    # A leaf cabled evenly with fewer links per spine (a smaller leaf) is so by design; a leaf with
    # the usual count to some spines and fewer to another lost cables.
    usual_leaves = {leaf for (leaf, _), n in pairs.items() if n == usual}
    out = []
    for (leaf, spine), n in sorted(pairs.items(), key=lambda t: (name[t[0][0]], name[t[0][1]])):
        for _ in range(max(0, usual - n) if leaf in usual_leaves else 0):
            out.append({"a": {"device": name[leaf], "port": None, "design_id": None, "tier": "leaf", "su": None,
                              "rail": None},
                        "b": {"device": name[spine], "port": None, "design_id": None, "tier": "spine", "su": None,
                              "rail": None},
                        "tier": "leaf-spine", "pair_links": f"{n} of {usual}",
                        "reason": "fewer links than the other leaf-spine pairs",
                        "confidence": "medium",
                        "why": f"{agree} of {len(pairs)} leaf-spine pairs have {usual} parallel links (the fabric's "
                               "own symmetry; no design to compare with)"})
    return out
