"""Shared by every test: output as a pipe sees it without COLUMNS (tables unwrapped), whatever the shell exports — a
test that wants a width sets it; numpy's OpenBLAS on one thread, as the `sipml` command runs it (its idle worker
threads would spin beside the other test workers); and `cli`, running `sipml ARGV…` in-process."""

import os

if not {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"} & set(os.environ):
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before numpy is imported (sipml.cli._one_blas_thread)

import pytest  # noqa: E402

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
