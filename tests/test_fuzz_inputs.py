"""Fuzzing every input from outside: project files, the user catalog, price books, CLI numbers.

Each case must end cleanly (tests/fuzzing.py says what that means): it works, or it is refused in
one line naming the file and field (or the option), quickly. The examples per target are few
enough that the whole file runs in about a minute; cases that once failed live on as files in
tests/data/fuzz/ and are replayed every run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import fuzzing
import pytest
from helpers import examples, superpod
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.io.project import design_to_json, save_design
from designer.model.intent.design import Edit
from designer.model.intent.slides import Slide

# The last test writes the whole run's tally: under pytest-xdist every test of this file runs
# on one worker (`make test` passes --dist loadgroup).
pytestmark = pytest.mark.xdist_group("fuzz-inputs")

CORPUS = Path(__file__).parent / "data" / "fuzz"
# Examples per target: 120 in `make test-slow`, 48 in `make test` (the quick profile's share,
# tests/conftest.py); FUZZ_EXAMPLES sets the count outright (benchmarks/bench_fuzz_readers.py).
FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES") or examples(120)), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Literals as they stand in a JSON file: not-a-numbers, overflows, absurd counts, hostile text.
HOSTILE_JSON = [
    "NaN", "Infinity", "-Infinity", "1e308", "1e400", "-1e400", "1e-308", "-1e-308", str(10**30),
    "9" * 5000, "-" + "9" * 5000, "-1", "0", "-0.0", "0.5", "1.5", "2147483648", str(2**64 + 1),
    "true", "false", "null", '""', '"\\ud800"', '"\\udfff x"', '"\\u0000\\u001b[31m"', '"=cmd|calc"',
    '"' + "x" * 200_000 + '"', "[" * 5000 + "]" * 5000, "{}", "[]", '{"a": 1}', '"leaf-1"',
    '"\\u202eevil\\u202c"', '"\\ud83d\\ude80"',
]


def _doc_with_everything() -> dict:
    design = superpod(1)
    design = type(design)(meta=design.meta, cluster=design.cluster, fabric=design.fabric,
                          edits=(Edit("add-links", "leaf-1", "spine-1", 2),), floorplan=design.floorplan,
                          performance=design.performance, slides=(Slide(title="s", kind="su", su=1),))
    return json.loads(design_to_json(design))


BASE = _doc_with_everything()


def _leaf_paths(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaf_paths(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _leaf_paths(value, path + (i,))
    yield path


PATHS = sorted(set(_leaf_paths(BASE)), key=str)
MARK = "@@FUZZ@@"


def _with_literal(path, literal: str, duplicate: bool = False) -> str:
    doc = json.loads(json.dumps(BASE))
    if not path:
        return literal
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = MARK
    text = json.dumps(doc, indent=1)
    if duplicate and isinstance(path[-1], str):
        literal = f'{literal}, "{path[-1]}": {literal}'
    return text.replace(f'"{MARK}"', literal)


literals = st.one_of(
    st.sampled_from(HOSTILE_JSON),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=30).map(json.dumps),
)


@st.composite
def project_files(draw) -> bytes:
    how = draw(st.sampled_from(["literal", "literal", "literal", "duplicate", "truncate", "bytes", "bom"]))
    path = draw(st.sampled_from(PATHS))
    if how in ("literal", "duplicate"):
        return _with_literal(path, draw(literals), how == "duplicate").encode("utf-8", "surrogatepass")
    text = json.dumps(BASE, indent=1).encode()
    if how == "truncate":
        return text[: draw(st.integers(0, len(text) - 1))]
    if how == "bom":
        return b"\xef\xbb\xbf" + _with_literal(path, draw(literals)).encode("utf-8", "surrogatepass")
    at = draw(st.integers(0, len(text) - 1))
    return text[:at] + draw(st.binary(min_size=1, max_size=8)) + text[at:]


@FUZZ
@given(project_files())
def test_fuzz_the_project_file_loader(raw):
    fuzzing.project_bytes(raw)


# --- the user catalog and the price book -------------------------------------------------------------

SWITCH = {"id": '"fz-switch"', "vendor": '"V"', "name": '"N"', "source": '"S"', "family": '"infiniband"',
          "cages": "32", "port_modes": "[{count = 64, gbps = 400}]", "power_w": "1500.0", "latency_ns": "200.0",
          "rack_units": "1"}
SERVER = {"id": '"fz-server"', "vendor": '"V"', "name": '"N"', "source": '"S"', "compute_nic": '"cx7"',
          "gpus": "8", "nvlink_domain_gpus": "8", "nvlink_GBps_per_gpu": "450.0", "compute_ports": "8",
          "port_gbps": "400", "planes_hint": "1", "power_w": "10200.0"}
HOSTILE_TOML = ["nan", "inf", "-inf", "+nan", "1e308", "1e400", "-1", "0", "-0.0", str(10**30), "9" * 5000,
                '""', '"\\ud800"', '"x"', "true", "[]", "{}", "1979-05-27", '"' + "y" * 200_000 + '"',
                "[" * 3000 + "]" * 3000, "[{count = 1000000000, gbps = 400}]", "[{count = 64, gbps = 0}]",
                "[{count = -64, gbps = 400}]"]
toml_values = st.one_of(st.sampled_from(HOSTILE_TOML), st.integers(-(10**40), 10**40).map(str),
                        st.floats(allow_nan=True, allow_infinity=True).map(lambda f: repr(f).replace("inf", "inf")))


def _table(kind: str, fields: dict) -> str:
    return f"[[{kind}]]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items())


@st.composite
def catalog_files(draw) -> str:
    kind, fields = draw(st.sampled_from([("switch", SWITCH), ("server", SERVER)]))
    fields = dict(fields)
    how = draw(st.sampled_from(["value", "value", "value", "twice", "truncate", "extra"]))
    key = draw(st.sampled_from(sorted(fields)))
    if how in ("value", "extra"):
        fields[key if how == "value" else "fz_unknown"] = draw(toml_values)
    text = _table(kind, fields)
    if how == "twice":
        text += "\n" + text
    if how == "truncate":
        text = text[: draw(st.integers(0, len(text) - 1))]
    return text


# Each example loads the whole catalog (built-in and the fuzzed user file): half the examples;
# the corpus above and the hostile campaign's catalog cases read the same loader.
@settings(FUZZ, max_examples=max(1, FUZZ.max_examples // 2))
@given(catalog_files())
def test_fuzz_the_user_catalog_loader(text):
    with tempfile.TemporaryDirectory() as folder:
        fuzzing.catalog_text(text, Path(folder))


@st.composite
def price_books(draw) -> str:
    fields = {"key": '"qm9700"', "unit_price": "30000.0", "per_m": "0.0", "basis": '"b"', "illustrative": "true"}
    how = draw(st.sampled_from(["value", "value", "head", "twice", "truncate"]))
    if how == "value":
        fields[draw(st.sampled_from(sorted(fields)))] = draw(toml_values)
    head = '[price_book]\ncurrency = "USD"\n'
    if how == "head":
        head = f"[price_book]\ncurrency = {draw(toml_values)}\n"
    text = head + _table("price", fields)
    if how == "twice":
        text += _table("price", fields)
    if how == "truncate":
        text = text[: draw(st.integers(0, len(text) - 1))]
    return text


@FUZZ
@given(price_books())
def test_fuzz_the_price_book_loader(text):
    fuzzing.price_text(text)


# --- every numeric argument of the command line ------------------------------------------------------

NUMERIC_OPTIONS = {
    "new": ["--gpus", "--nodes", "--gpus-per-node", "--radix", "--speed", "--oversubscription",
            "--spine-oversubscription", "--tiers", "--nodes-per-su", "--planes"],
    "collectives": ["--gpus", "--nodes", "--size", "--params", "--compute-ms", "--dp", "--bytes-per-grad"],
    "compare": ["--years", "--energy-price", "--pue", "--size", "--params", "--compute-ms"],
    "render": ["--dpi", "--size", "--view"],
}
HOSTILE_CLI = ["nan", "NaN", "inf", "-inf", "Infinity", "1e308", "1e400", "1e-308", "-1", "0", "-0", "0.0",
               str(10**30), "9" * 5000, "1:1e308", "1e308:1", "0:1", "1:0", "1:-1", "1000000000", "100000",
               "2048", "2049", "1", "2", "3", "8", "400G", "1.6T", "0G", "1e400G", "8GiB", "0B",
               "1000000000000000000000000000000B",
               "1e400", "70B", "1e16", "1e17", "", " ", "x", "\x00", "\ud800", "1_000", "0x10", "1,000", "+5",
               "13.333x7.5", "0x0", "1e308x1", "nanxnan", "su:0", "su:99999999999999999999", "plane:1", "slide:3"]
cli_values = st.one_of(st.sampled_from(HOSTILE_CLI), st.integers(-(10**12), 10**12).map(str),
                       st.floats(allow_nan=True, allow_infinity=True).map(repr), st.text(max_size=12))


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fuzz") / "p.json"
    save_design(superpod(1), path)
    return path


def _argv(command: str, option: str, value: str, project: Path, out: Path) -> list[str]:
    given = f"{option}={value}"
    if command == "new":
        base = ["new", "--template", "fat-tree"]
        if option not in ("--gpus", "--nodes"):
            base += ["--nodes", "32"]
        if option == "--radix":
            base += ["--speed", "400G"]
        return base + [given, "-o", str(out / "new.json"), "--force"]
    if command == "collectives":
        extra = ["--params", "70e9"] if option in ("--compute-ms", "--dp", "--bytes-per-grad") else []
        extra += ["--size", "1MiB"] if option not in ("--size", "--params", "--compute-ms", "--dp",
                                                         "--bytes-per-grad") else []
        return ["collectives", str(project), *extra, given, "--json"]
    if command == "compare":
        return ["compare", str(project), str(project), given, "--json"]
    return ["render", str(project), "-o", str(out / "r.svg"), given]


@FUZZ
@given(st.sampled_from([(c, o) for c, opts in NUMERIC_OPTIONS.items() for o in opts if c != "render"]),
       cli_values)
def test_fuzz_every_numeric_command_line_argument(project, command_option, value):
    command, option = command_option
    with tempfile.TemporaryDirectory() as out:
        fuzzing.command(_argv(command, option, value, project, Path(out)), option)


@settings(max_examples=examples(25), deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NUMERIC_OPTIONS["render"]), cli_values)
def test_fuzz_the_render_arguments(project, option, value):
    with tempfile.TemporaryDirectory() as out:
        fuzzing.command(_argv("render", option, value, project, Path(out)), option)


# --- the corpus: every case that once failed, replayed --------------------------------------------------

def _corpus(suffix: str) -> list[Path]:
    return sorted(CORPUS.glob(f"*{suffix}"))


@pytest.mark.parametrize("path", _corpus(".json"), ids=lambda p: p.name)
def test_corpus_project_files(path):
    fuzzing.project_bytes(path.read_bytes(), path.name)


@pytest.mark.parametrize("path", [p for p in _corpus(".toml") if not p.name.startswith("prices-")],
                         ids=lambda p: p.name)
def test_corpus_catalog_files(path, tmp_path):
    fuzzing.catalog_text(path.read_bytes(), tmp_path)


@pytest.mark.parametrize("path", [p for p in _corpus(".toml") if p.name.startswith("prices-")],
                         ids=lambda p: p.name)
def test_corpus_price_books(path):
    fuzzing.price_text(path.read_text(encoding="utf-8", errors="surrogateescape"))


def _cli_corpus():
    lines = (CORPUS / "cli.txt").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("case", _cli_corpus(), ids=lambda c: " ".join(c[:2])[:40])
def test_corpus_command_lines(case, project, tmp_path):
    command, option, value = case
    fuzzing.command(_argv(command, option, value, project, tmp_path), option)


def test_write_the_tally():
    """Runs last in this file: with FUZZ_TALLY set, the counts of the run are written there."""
    target = os.environ.get("FUZZ_TALLY")
    if target:
        Path(target).write_text(json.dumps(dict(fuzzing.TALLY), indent=1))
    assert fuzzing.TALLY["defects"] == 0
