"""The exact solver's search core (docs/host-tool.md, "The exact solver"): plain C that pip
builds with the system compiler, so `make venv` needs nothing beyond gcc and Python's headers.
Everything else about the package is in pyproject.toml.

An editable install of packages that live in other folders (host_tools/, firmware/lib/)
makes setuptools warn that a folder named like a package in the working directory would
shadow it; no such folder is at the top of this repository, so `make sim` does not repeat
that warning to a newcomer at the first install.
"""

import warnings

from setuptools import Extension, setup

try:
    from setuptools.warnings import InformationOnly
except ImportError:  # setuptools before 67 has no such warning to silence
    pass
else:
    warnings.filterwarnings("ignore", message=r"\s*Editable installation", category=InformationOnly)

setup(ext_modules=[Extension("mancala_host.solver._kalah",
                             sources=["host_tools/mancala_host/solver/_kalah.c",
                                      "host_tools/mancala_host/solver/search.c"],
                             depends=["host_tools/mancala_host/solver/search.h"],
                             extra_compile_args=["-O2"])])
