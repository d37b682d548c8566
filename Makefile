# Entry points: make sim, make test, make bench, make deploy, make firmware.  Each sets up
# .venv itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JOBS   ?= 2
# make test runs the tests in TEST_JOBS processes (pytest-xdist): most of the suite's time is
# the emulated Pico, one core per board, and one process more than JOBS keeps the cores busy
# while a test waits on a board, a page or the image build. TEST_JOBS=1 runs them one after
# another.
TEST_JOBS ?= $(shell echo $$(($(JOBS) + 1)))
STUBS  := $(VENV)/micropython-stubs
STUBS_PACKAGE := micropython-rp2-rpi-pico-stubs==1.28.*
CIRCUITPY_LIB := $(VENV)/circuitpython-lib
NEOPIXEL_PACKAGE := adafruit-circuitpython-neopixel==6.4.2

# The MicroPython source the image is built from: an archive or a folder.  By default the
# archive in the RP2 mirror (MANCALA_RP2_MIRROR, else build/rp2) when it is there; with none,
# make firmware clones the upstream tag.
RP2_MIRROR      := $(or $(MANCALA_RP2_MIRROR),build/rp2)
MICROPYTHON_SRC ?= $(wildcard $(RP2_MIRROR)/micropython-1.28.0-rp2-src.tar.xz)

.PHONY: sim test bench deploy venv clean browser rp2040 firmware toolchain tables book

# make venv: create or update .venv; quick when pyproject.toml has not changed.
venv: $(STAMP)

# The exact solver's compiled core is built by that pip install: a change to it reinstalls.
# It needs a C compiler and Python's headers: Debian's gcc and python3-dev, installed once
# like the browser below when either is missing.
HAS_HEADERS = $(PYTHON) -c "import os, sys, sysconfig; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))"
$(STAMP): pyproject.toml setup.py Makefile $(wildcard host_tools/mancala_host/solver/*.[ch])
	@command -v gcc >/dev/null 2>&1 && $(HAS_HEADERS) || { \
	  echo "Installing Debian's gcc and python3-dev for the exact solver's compiled core"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq gcc python3-dev; }
	@command -v gcc >/dev/null 2>&1 && $(HAS_HEADERS) || { \
	  echo "The exact solver is C: $(PYTHON) needs gcc and its Python.h (for Debian's python3, the python3-dev package); install them and run make again." >&2; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@# The MicroPython stubs the type check reads (tests/test_typecheck.py), for the board's
	@# v1.28. Kept out of site-packages: they ship an rp2/ folder CPython would import.
	$(BIN)/python -m pip install --quiet --upgrade --target $(STUBS) '$(STUBS_PACKAGE)'
	@# The CircuitPython edition's LED library, where deploy --circuitpython takes it from.
	$(BIN)/python -m pip install --quiet --upgrade --no-deps --target $(CIRCUITPY_LIB) '$(NEOPIXEL_PACKAGE)'
	@touch $(STAMP)

sim: $(STAMP) rp2040
	$(BIN)/mancala-board sim $(SIMFLAGS)

# The tests run on the firmware image too whenever its source is at hand: it is built in the
# background as the tests start (tests/conftest.py and firmware_image.py, once for all the test
# processes, cached: seconds when nothing changed) while the processes run the tests that do
# not need it; those that do come later in each process's share, and wait for it.  The
# longest tests are shared out first, evenly (tests/conftest.py's LONGEST).
test: $(STAMP) browser rp2040 $(if $(MICROPYTHON_SRC),toolchain)
	$(BIN)/python -m pytest -q $(if $(filter-out 1,$(TEST_JOBS)),-n $(TEST_JOBS) --dist worksteal) $(PYTEST_FLAGS)

# The web view is tested in a real headless Chromium: Debian's package, not a test tool's
# own download.  Installed once; skipped when it is already there.
browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium and chromium-driver for the web view tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium chromium-driver; }

# The emulated Pico (sim --target rp2040): rp2040js from npm at the version the lockfile
# pins, installed with `npm ci`; Node.js and npm from Debian when missing.  The RP2040 images
# come from MANCALA_RP2_MIRROR (else build/rp2/): README, "The emulated Pico".
RP2040_JS := host_tools/mancala_host/sim/rp2040
RP2040_STAMP := $(RP2040_JS)/node_modules/.installed

rp2040: $(RP2040_STAMP)

$(RP2040_STAMP): $(RP2040_JS)/package-lock.json
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { \
	  echo "Installing Debian's nodejs and npm for the emulated Pico"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq nodejs npm; }
	cd $(RP2040_JS) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# build/firmware/mancala-board-<version>.uf2: MicroPython for the Pico with firmware/ frozen in.
firmware: $(STAMP) toolchain
	$(BIN)/python -m mancala_host.flashing.imagebuild --jobs $(JOBS) $(if $(MICROPYTHON_SRC),--source "$(MICROPYTHON_SRC)")

# Debian's ARM toolchain for the image, installed once like the browser above.
toolchain:
	@command -v arm-none-eabi-gcc >/dev/null 2>&1 && command -v cmake >/dev/null 2>&1 \
	  && command -v patch >/dev/null 2>&1 && arm-none-eabi-gcc -print-file-name=libc.a | grep -q / \
	  && arm-none-eabi-gcc -print-file-name=libstdc++.a | grep -q / || { \
	  echo "Installing Debian's ARM toolchain (gcc-arm-none-eabi, newlib, cmake, patch) for the image"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq gcc-arm-none-eabi \
	    libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib cmake make gcc g++ patch; }

bench: $(STAMP) rp2040 book
	@for b in bench/pico.py bench/engine.py bench/cpu.py bench/board.py bench/display.py bench/driver_timing.py bench/pico_touch.py bench/pico_frames.py bench/hub.py bench/hub_bots.py bench/hub_chaos.py bench/soak.py bench/handover.py bench/nvm_wear.py bench/solver.py bench/pico_endgame.py bench/endgame_strength.py bench/exact_class.py; do \
	  echo "== $$b"; $(BIN)/python $$b $(BENCHFLAGS) || exit 1; done
	@# The exact solver's long runs, off by default: SOLVERFLAGS=--six-five (Kalah(6,5): many
	@# hours on 2 cores, docs/cpu.md 10) or SOLVERFLAGS="--versus DIR" (beside CMancala's
	@# source; docs/host-tool.md 14).
	@if [ -n "$(SOLVERFLAGS)" ]; then echo "== bench/solver.py $(SOLVERFLAGS)"; \
	  $(BIN)/python bench/solver.py $(SOLVERFLAGS) || exit 1; fi

# build/tables/*.bin: the board's endgame tables, generated by the exact solver (the same bytes
# every time: tests/test_solver_tables.py checks their hashes).  docs/host-tool.md section 15.
tables: $(STAMP)
	$(BIN)/python -m mancala_host.solver.tables --out build/tables

# The exact solver's opening books for Kalah(6,3) and (6,4), both presets, shipped in the
# package (host_tools/mancala_host/solver/books: the same bytes every time, and
# tests/test_solver_book.py checks their hashes), and into build/book its full endgame
# tables, which the commands read instead of filling them.  A file already there is kept;
# BOOKFLAGS=--force makes them all again (Kalah(6,4)'s take hours).  docs/host-tool.md 16.
book: $(STAMP)
	$(BIN)/python -m mancala_host.solver.book $(BOOKFLAGS)

deploy: $(STAMP)
	$(BIN)/mancala-board deploy $(DEPLOYFLAGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
