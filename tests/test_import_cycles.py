"""No import circles in the firmware (firmware/lib) or the host tool (host_tools).

The imports are drawn from the source with ast, without importing anything: one arrow from
a module to each of our modules it imports, at module level or inside a function. Imports
inside functions count: the firmware imports inside functions on purpose (a module loaded
only while it is used, docs/performance.md), and a circle drawn through one is still two
modules that each need the other. Not drawn:
- imports under `if TYPE_CHECKING:`, which never run;
- an import of a package the module sits in (mancala_fw.app.boot's `from mancala_fw.app
  import forget`): importing a submodule runs its packages first in any case, so they are
  always there for it, and a package that loads its own submodules is how a package is
  made. `from mancala_fw.app import boot` elsewhere is an arrow to mancala_fw.app.boot.

    .venv/bin/python tests/test_import_cycles.py     # prints every circle, or none
"""
import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREES = (os.path.join(ROOT, "firmware", "lib"), os.path.join(ROOT, "host_tools"))
SKIP_DIRS = ("node_modules", "__pycache__")


def modules(top):
    """{dotted module name: path} for the .py files under top."""
    found = {}
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in files:
            if not name.endswith(".py"):
                continue
            parts = os.path.relpath(os.path.join(folder, name), top)[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if parts:
                found[".".join(parts)] = os.path.join(folder, name)
    return found


def _type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree, typing=False):
    """Every Import and ImportFrom node of tree, but those under `if TYPE_CHECKING:` (typing:
    those too)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if not typing and isinstance(node, ast.If) and _type_checking(node.test):
            todo.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        todo.extend(ast.iter_child_nodes(node))


def arrows(name, path, known, typing=False):
    """The names in known that module name (its source at path) imports (typing: also under
    `if TYPE_CHECKING:`)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    out = set()
    for node in _imports(tree, typing):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            targets = []
            for alias in node.names:
                sub = base + "." + alias.name
                targets.append(sub if sub in known else base)
        for target in targets:
            # `import a.b.c` names a.b.c; the longest part of it that is one of ours
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                out.add(target)
    return out


def graph(tops=TREES, typing=False):
    known = {}
    for top in tops:
        known.update(modules(top))
    return {name: arrows(name, path, known, typing) for name, path in known.items()}


def circles(g):
    """The strongly connected parts of g with more than one module (Tarjan's algorithm,
    without recursion), each sorted; sorted."""
    index = {}
    low = {}
    on_stack = set()
    stack = []
    found = []
    counter = [0]
    for start in sorted(g):
        if start in index:
            continue
        work = [(start, iter(sorted(g[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(g.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        part.append(m)
                        if m == node:
                            break
                    if len(part) > 1:
                        found.append(sorted(part))
    return sorted(found)


def _show(g, part):
    members = set(part)
    return "  " + ", ".join(part) + "\n" + "".join(
        "    %s -> %s\n" % (m, ", ".join(sorted(g[m] & members))) for m in part)


def test_the_circle_finder_finds_a_circle_and_nothing_else():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}, "f": {"f"}}
    assert circles(g) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_drawing_sees_function_level_and_relative_imports():
    g = graph()
    # loop.boot imports app.boot inside a function; circuitpy imports .boardfiles relatively
    assert "mancala_fw.app.boot" in g["mancala_fw.app.loop"]
    assert "mancala_host.flashing.boardfiles" in g["mancala_host.flashing.circuitpy"]
    assert "mancala_fw.app.flow" in g["mancala_fw.app"]  # a package's own submodule
    assert "mancala_fw.app" not in g["mancala_fw.app.boot"]  # its package: not drawn
    assert "mancala_host.sim.launcher" not in g["mancala_host.sim.serve"]  # TYPE_CHECKING only


def test_no_import_circles():
    g = graph()
    found = circles(g)
    assert not found, "import circles:\n" + "".join(_show(g, part) for part in found)


# Packages whose parts own one another one way only: a part that reports to its owner does so
# through an interface it declares, so not even a type hint names the owner.
ONE_WAY = ("mancala_host.hub", "mancala_host.sim")


def test_the_hub_and_the_sim_have_no_circle_even_through_type_hints():
    g = graph(typing=True)
    inside = {m: {t for t in ts if t.startswith(ONE_WAY)} for m, ts in g.items()
              if m.startswith(ONE_WAY)}
    assert "mancala_host.hub.room" in inside["mancala_host.hub.server"]  # the drawing sees them
    found = circles(inside)
    assert not found, "import circles through type hints:\n" + "".join(
        _show(inside, part) for part in found)


if __name__ == "__main__":
    g = graph()
    found = circles(g)
    print("".join(_show(g, part) for part in found) or "no import circles", end="")
    sys.exit(1 if found else 0)
