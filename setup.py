"""The package's metadata is pyproject.toml; this only adds the browser client: a build (a wheel, a
non-editable ``pip install .``) carries web_client/dist as ``server/client`` when it is built at that
time, and the server serves it from there (server/http.py STATIC). An editable install serves the
checkout's web_client/dist itself."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DIST = Path(__file__).resolve().parent / "web_client" / "dist"


class BuildPy(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "server" / "client"
        shutil.rmtree(target, ignore_errors=True)  # never an older build's copy
        if (DIST / "index.html").is_file():
            shutil.copytree(DIST, target)


setup(cmdclass={"build_py": BuildPy})
