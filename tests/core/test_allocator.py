"""core.allocator: glibc's malloc takes the settings; elsewhere nothing is asked. numpy's large arrays on ordinary
pages while a command runs, a caller's setting as it was after."""

import platform
import sys

import pytest

from core.allocator import keep_freed_memory


def test_glibc_keeps_freed_memory_and_other_c_libraries_are_left_alone():
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert keep_freed_memory() is glibc


_HUGE = ("import contextlib, io, os, sys\n"
         "{before}from sipml.cli import main\n"
         "with contextlib.redirect_stdout(io.StringIO()): code = main(['budget'])\n"
         "from core.allocator import advise_huge_pages\n"
         "print(code, os.environ.get('NUMPY_MADVISE_HUGEPAGE'), advise_huge_pages(True))")


def _after_a_command(before: str = "", **env) -> list[str]:
    """A fresh Python's exit code of `sipml budget` run through `main`, then its NUMPY_MADVISE_HUGEPAGE and
    numpy's huge-page advice (`before`: code run first)."""
    import os
    import subprocess

    clean = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    return subprocess.run([sys.executable, "-c", _HUGE.format(before=before)], capture_output=True, text=True,
                          env={**clean, **env}, check=True).stdout.split()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="numpy advises huge pages on Linux only")
def test_a_command_keeps_numpy_off_huge_pages_and_a_callers_setting_as_it_was():
    """numpy imported by the command: told before its import (the variable, gone again once the command returns);
    numpy imported by the caller first: its advice on again after; a user's NUMPY_MADVISE_HUGEPAGE wins."""
    import os
    import subprocess

    clean = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    default = subprocess.run([sys.executable, "-c", "import numpy; from core.allocator import advise_huge_pages; "
                              "print(advise_huge_pages(True))"], capture_output=True, text=True, env=clean,
                             check=True).stdout.split()
    if default != ["True"]:
        pytest.skip("this numpy does not advise huge pages by default (a kernel before 4.6): nothing to switch off")
    assert _after_a_command() == ["0", "None", "False"]  # off from numpy's import on, the variable as it was
    assert _after_a_command("import numpy; from core.allocator import advise_huge_pages; "
                            "advise_huge_pages(True)\n") == ["0", "None", "True"]
    assert _after_a_command(NUMPY_MADVISE_HUGEPAGE="1") == ["0", "1", "True"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="numpy advises huge pages on Linux only")
def test_small_pages_while_a_command_runs_and_a_workers_from_then_on(monkeypatch):
    import numpy  # noqa: F401  (the switch, not the variable, is what moves once numpy is in)

    from core.allocator import HUGE_PAGES, advise_huge_pages, as_a_command, small_pages

    monkeypatch.delenv(HUGE_PAGES, raising=False)
    before = advise_huge_pages(True)
    try:
        with small_pages():
            assert advise_huge_pages(False) is False  # off inside
        assert advise_huge_pages(True) is True  # on again after
        as_a_command()
        assert advise_huge_pages(True) is False  # a worker's stays off
        monkeypatch.setenv(HUGE_PAGES, "1")
        with small_pages():
            assert advise_huge_pages(True) is True  # the user's setting kept
        as_a_command()
        assert advise_huge_pages(True) is True
    finally:
        advise_huge_pages(before)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="numpy advises huge pages on Linux only")
def test_commands_on_two_threads_put_the_advice_back_when_the_last_returns(monkeypatch):
    """The first command to start switches numpy's advice off, the last to return puts it back, whichever order
    they end in."""
    from core.allocator import HUGE_PAGES, advise_huge_pages, small_pages

    monkeypatch.delenv(HUGE_PAGES, raising=False)
    before = advise_huge_pages(True)
    try:
        first, second = small_pages(), small_pages()
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)  # the first returns while the second still runs
        assert advise_huge_pages(False) is False
        second.__exit__(None, None, None)
        assert advise_huge_pages(True) is True
    finally:
        advise_huge_pages(before)


def _advice(_: int) -> bool:
    """numpy's huge-page advice in this (worker) process."""
    from core.allocator import advise_huge_pages

    on = advise_huge_pages(False)
    advise_huge_pages(on)
    return on


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="numpy advises huge pages on Linux only")
def test_a_sweeps_local_workers_run_off_huge_pages(monkeypatch):
    """Each local worker of a sweep sets its memory as a command's, whatever it inherits."""
    from core.allocator import HUGE_PAGES, advise_huge_pages
    from sipml.sweep_run import _map

    monkeypatch.delenv(HUGE_PAGES, raising=False)
    before = advise_huge_pages(True)  # what a forked worker inherits
    try:
        assert list(_map(_advice, [(i,) for i in range(4)], None, 2, None)) == [False] * 4
    finally:
        advise_huge_pages(before)
