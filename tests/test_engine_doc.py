"""docs/engine.md runs: every ```python block, in order and in one namespace, as a doctest
(each >>> line must print what the page shows below it)."""
import doctest
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "engine.md")


def _blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def test_every_example_on_the_engine_page_runs_as_shown(monkeypatch):
    monkeypatch.chdir(ROOT)  # the page's perft example finds tests/mp from the top
    with open(PAGE, encoding="utf-8") as f:
        blocks = _blocks(f.read())
    assert len(blocks) >= 15
    globs = {}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = 0
    for k, block in enumerate(blocks):
        assert ">>> " in block, "block %d has no example" % k
        test = parser.get_doctest(block, globs, "engine.md block %d" % k, PAGE, 0)
        examples += len(test.examples)
        out = []
        runner.run(test, out=out.append, clear_globs=False)
        globs = test.globs  # the next block goes on where this one stopped
        assert not out, "".join(out)
    assert examples > 60
