"""Running `sipml` in-process for the input tests: its exit code and output, and a refusal's one line."""

from sipml.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, *argv, fragment=""):
    """Exit 2 with one `sipml: error:` line containing `fragment`; the line."""
    code, out, err = run(capsys, *argv)
    assert code == 2, (argv, code, err)
    assert err.startswith("sipml: error:") and err.count("\n") == 1 and "internal error" not in err, err
    assert fragment in err, err
    return err
