"""Shared fixtures of the command-line tests."""

import pytest

from sipml.cli import main


@pytest.fixture
def cli(capsys):
    """Run `sipml ARGV…` in-process: (exit code, stdout, stderr)."""
    def run(*argv):
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err
    return run
