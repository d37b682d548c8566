"""The README's commands run the installed console script, not the package on a test path."""
import os
import subprocess

from conftest import ROOT

SCRIPT = os.path.join(ROOT, ".venv", "bin", "mancala-board")


def test_mancala_board_is_installed_and_lists_its_commands():
    assert os.access(SCRIPT, os.X_OK), "make venv installs the console script mancala-board"
    out = subprocess.run([SCRIPT, "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for command in ("sim", "info", "config", "watch", "web", "record", "replay", "stats",
                    "export", "deploy", "analyze", "hint", "profile", "diag"):
        assert command in out.stdout, command


def test_a_bad_command_is_one_sentence_without_a_traceback():
    out = subprocess.run([SCRIPT, "--port", "/nonexistent/tty", "state"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr and out.stderr.strip().count("\n") == 0, out.stderr
