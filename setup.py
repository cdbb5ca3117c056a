"""Build step: ship the top-level resources/, examples/ and the user guide inside the package.

People edit the catalog, price book, performance constants, icons and examples where they
are, at the top of the source tree. A wheel (and so `pip install .`) carries a copy of them
as package data under designer/_data/, where designer.catalog.loader finds them through
importlib.resources. The guide's Markdown (docs/, with mkdocs.yml for its page order) goes
there too, so Help > User Guide opens offline. An editable install reads the source tree directly.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
DATA = ("resources", "examples", "docs")
FILES = ("mkdocs.yml",)


class BuildWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads resources/ and examples/ in place
        target = Path(self.build_lib) / "designer" / "_data"
        for name in DATA:
            dest = target / name
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(ROOT / name, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".*", "hooks"))
        for name in FILES:
            shutil.copy2(ROOT / name, target / name)


setup(cmdclass={"build_py": BuildWithData})
