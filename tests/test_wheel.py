"""The wheel carries everything the tool reads: install it elsewhere and run it from `/`.

The wheel is built from this tree and installed (without dependencies) into a fresh virtual
environment. The dependencies come from the test's own environment through a path file, so
the test needs no download; the package itself comes only from the wheel. Every command runs
with `/` as its working directory, so neither the source tree nor its resources/ is in reach.
"""

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


# One worker builds the wheel once for every test of this file (pytest-xdist, --dist loadgroup).
pytestmark = pytest.mark.xdist_group("wheel")

# What the build leaves out: it writes its own build/ and *.egg-info beside the sources. The
# guide (docs/, mkdocs.yml) goes into the wheel, so it is copied, but not its rendered screenshots
# (docs/images/generated/): they are build output, which `make test` may be rendering beside this
# test, and a picture replaced while it is copied would fail the copy.
_NOT_BUILT = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc",
                                    ".*_cache", ".hypothesis", "tests", "benchmarks", "packaging", "generated")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    # Built from a copy of the tree: a build writes into its source folder (build/, the copied
    # data), which another test run or build in this tree may be reading at the same time.
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=_NOT_BUILT)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    wheel = next(dist.glob("fabric_designer-*.whl"))
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                  capture_output=True, text=True, check=True, timeout=120).stdout.strip())
    # Dependencies from this environment: appended after the fresh site-packages, and without
    # processing this environment's own path files (so its editable install stays out of reach).
    deps = [p for p in [sysconfig.get_path("purelib"), *site.getsitepackages()] if p]
    (purelib / "zz_test_dependencies.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
                              str(wheel)], capture_output=True, text=True, timeout=300)
    # pip before 22.3 has no --python; and a pip that finds fabric-designer already installed in
    # the dependencies' environment (an editable install of it) leaves the fresh one without it.
    # Either way: unpack the wheel by hand.
    if install.returncode != 0 or not (purelib / "designer").is_dir():
        import zipfile
        zipfile.ZipFile(wheel).extractall(purelib)
    return env_dir, wheel


def _run(env_dir, *args, home):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(home), XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"), FABRIC_DESIGNER_CONFIG_DIR=str(home / "config" / "fd"),
               FABRIC_DESIGNER_DATA_DIR=str(home / "data" / "fd"))
    code = "import sys; from designer.cli.main import main; sys.exit(main())"
    return subprocess.run([str(env_dir / "bin" / "python"), "-c", code, *args], cwd="/", env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_wheel_holds_the_catalog_prices_constants_icons_and_examples(installed):
    import zipfile

    _, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for part in ("resources/catalog/switches.toml", "resources/prices/default.toml", "resources/perf/nccl.toml",
                 "resources/icons/fabric-designer.svg", "examples/dgx-h100-superpod-1su.json"):
        assert f"designer/_data/{part}" in names, part


def test_installed_wheel_runs_new_metrics_bom_and_render_from_root(installed, tmp_path):
    env_dir, _ = installed
    where = _run(env_dir, "--version", home=tmp_path)
    assert where.returncode == 0, where.stderr
    probe = subprocess.run([str(env_dir / "bin" / "python"), "-c",
                            "import designer, designer.catalog.loader as l; print(designer.__file__);"
                            " print(l.RESOURCES)"],
                           cwd="/", capture_output=True, text=True, check=True, timeout=120,
                           env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")})
    module_file, resources = probe.stdout.split()
    assert str(env_dir) in module_file and str(ROOT) not in module_file
    assert resources.startswith(str(env_dir)) and resources.endswith("_data/resources")
    design = tmp_path / "x.json"
    new = _run(env_dir, "new", "--template", "leaf-spine", "--gpus", "64", "--switch", "qm9700", "-o", str(design),
               home=tmp_path)
    assert new.returncode == 0, new.stderr
    metrics = _run(env_dir, "metrics", str(design), "--json", home=tmp_path)
    assert metrics.returncode == 0, metrics.stderr
    assert json.loads(metrics.stdout)["gpus"] == 64
    bom = _run(env_dir, "bom", str(design), "-o", str(tmp_path / "bom.csv"), home=tmp_path)
    assert bom.returncode == 0, bom.stderr
    assert "Switches" in (tmp_path / "bom.csv").read_text(encoding="utf-8-sig")
    svg = tmp_path / "x.svg"
    render = _run(env_dir, "render", str(design), "-o", str(svg), home=tmp_path)
    assert render.returncode == 0, render.stderr
    assert svg.read_text().lstrip().startswith("<?xml")
