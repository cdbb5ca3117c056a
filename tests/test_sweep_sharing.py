"""The sweep's tasks: whole runs of the innermost axes, and a fabric that two points build measured once."""

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.catalog.loader import BUILTIN_DIR, load_catalog
from designer.model.decisions import design_space
from designer.model.decisions.design_space import CHUNK, MAX_CHUNK, SweepSpec, chunks_of, evaluate_point, run_sweep
from designer.model.intent.design import Meta
from designer.model.topology.sizing import SizingError
from tests.helpers import examples

CAT = default_catalog()


def _figures(point):
    """A point's measured figures: all but its index, its choice, its name and the fronts."""
    return repr(replace(point, index=0, choice={}, name="", front_cost_time=False, front_cost_power=False))


def _count_measures(monkeypatch) -> list:
    """Each (design, catalog) the sweep measures from now on, with nothing remembered before."""
    calls = []
    real = design_space._measure

    def counting(spec_, design, catalog):
        calls.append((design, catalog))
        return real(spec_, design, catalog)

    design_space._MEASURED.clear()
    monkeypatch.setattr(design_space, "_measure", counting)
    return calls


def test_the_default_switch_named_and_not_is_one_fabric_measured_once(monkeypatch):
    spec = SweepSpec(gpus=512, technologies=("ib-ndr", "roce-400g"), oversubscriptions=(1.0, 2.0),
                     switches=(None, "qm9700", "sn5600"), tiers=(None, 2))
    measured = _count_measures(monkeypatch)
    result = run_sweep(spec, workers=1)
    built = result.built
    # QM9700 is NDR's default switch and SN5600 RoCE 400G's: named or not, it is one design (the
    # design names its switch either way); the tiers left to sizing and two tiers asked for are
    # two designs (equal figures, measured apart). A switch of the other family is refused when
    # the design is measured: once too.
    contents = {replace(result.design(p, CAT), meta=Meta()).content_key() for p in result.points}
    assert len(built) == 2 * 2 * 2 * 2 and len(contents) == 2 * 2 * 2 * 2
    assert len(measured) == len(contents)
    assert len({_figures(p) for p in built}) == 2 * 2
    for p in result.points:
        # the same figures as a point measured on its own (a catalog given: nothing shared)
        alone = evaluate_point(spec, p.index, p.choice, CAT)
        assert replace(alone, front_cost_time=p.front_cost_time, front_cost_power=p.front_cost_power) == p
    # each point keeps its own name, the one its design is rebuilt with
    assert all(p.name == result.design(p, CAT).meta.name for p in built)
    assert len({p.name for p in built}) == len(built)


def test_a_fabric_that_fails_once_measured_fails_for_every_point_that_builds_it(monkeypatch):
    calls = []

    def failing(design, catalog):
        calls.append(design)
        raise SizingError("no room for the spines")

    spec = SweepSpec(gpus=512, technologies=("ib-ndr",), switches=(None, "qm9700"))
    design_space._MEASURED.clear()
    monkeypatch.setattr(design_space, "derive", failing)
    first, second = run_sweep(spec, workers=1).points
    assert len(calls) == 1
    # as before sharing: the reason, and no name (the failure came after the design was built)
    assert (first.error, first.name, second.error, second.name) == ("no room for the spines", "",
                                                                     "no room for the spines", "")
    design_space._MEASURED.clear()   # nothing measured under the fault is left for other tests


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.integers(1, 6), min_size=5, max_size=5))
def test_tasks_hold_whole_runs_of_the_innermost_axes(lengths):
    oversubs, planes, switches, tiers, uplinks = lengths   # the axes, outermost first
    spec = SweepSpec(gpus=64, templates=("leaf-spine",), technologies=("ib-ndr", "roce-400g"),
                     oversubscriptions=tuple(1.0 + i for i in range(oversubs)), planes=tuple(range(1, planes + 1)),
                     switches=tuple(f"s{i}" for i in range(switches)), tiers=tuple([2, 3, None] * 3)[:tiers],
                     uplink_speeds=tuple(100 * (i + 1) for i in range(uplinks)))
    todo = list(enumerate(spec.choices()))
    chunks = chunks_of(spec, todo)
    assert [p for c in chunks for p in c] == todo
    assert all(CHUNK <= len(c) <= max(MAX_CHUNK, 2 * CHUNK) for c in chunks[:-1])
    # the run the tasks keep whole: the innermost axes' product, as far as MAX_CHUNK allows
    run = 1
    for n in (uplinks, tiers, switches, planes):
        if run * n > MAX_CHUNK:
            break
        run *= n
    assert all(len(c) % run == 0 for c in chunks[:-1])
    assert all(c[0][0] % run == 0 for c in chunks)


def test_a_catalog_loaded_afresh_is_measured_afresh(monkeypatch):
    spec = SweepSpec(gpus=256, technologies=("ib-ndr",))
    measured = _count_measures(monkeypatch)
    loaded = design_space.default_catalog()
    first = evaluate_point(spec, 0, spec.choices()[0])
    again = evaluate_point(spec, 0, spec.choices()[0])
    fresh = load_catalog(BUILTIN_DIR)   # another catalog object, as after a user catalog is read again
    monkeypatch.setattr(design_space, "default_catalog", lambda: fresh)
    third = evaluate_point(spec, 0, spec.choices()[0])
    assert [id(c) for _, c in measured] == [id(loaded), id(fresh)] and first == again == third
