"""Shared by every test: output as a pipe sees it without COLUMNS (tables unwrapped), whatever the shell exports — a
test that wants a width sets it; and `cli`, running `sipml ARGV…` in-process."""

import os

import pytest

os.environ.pop("COLUMNS", None)


@pytest.fixture
def cli(capsys):
    """Run `sipml ARGV…` in-process: (exit code, stdout, stderr)."""
    from sipml.cli import main

    def run(*argv):
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err
    return run
