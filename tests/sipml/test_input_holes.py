"""Issue 42's last input holes, found by held-out fuzzing: one test per hole (each failed before its fix), and a
fuzzer over every command's option values. Bad input is exit 2 with one line on stderr; never exit 70, never a
traceback, never a contradiction taken silently. Numbers are ASCII digits everywhere (README, "Exit codes")."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.sipml.cli_run import refused, run

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "workloads" / "zoo"


# --- exit 70 for input --------------------------------------------------------------------------------------
def test_issue42_a_superscript_digit_in_strategy_is_exit_2_not_70(capsys):
    refused(capsys, "speedup", "sip-ring", "-m", "gpt2-355m", "--strategy", "tp=²", fragment="tp=")


def test_issue42_a_superscript_digit_in_groups_is_exit_2_not_70(capsys):
    refused(capsys, "fabric", "--groups", "tp=²", fragment="--groups")


def test_issue42_a_batch_beyond_64_bits_is_exit_2_not_70(capsys):
    refused(capsys, "speedup", "--batch", "18446744073709551616", fragment="--batch")


# --- one rule for digits: ASCII only, wherever a number is read -----------------------------------------------
@pytest.mark.parametrize("argv", [
    ("speedup", "sip-ring", "-m", "gpt2-355m", "--strategy", "tp=８"),
    ("fabric", "--groups", "tp=８"),
    ("speedup", "sip-ring", "-m", "gpt2-355m", "--gpus", "６４"),
    ("speedup", "sip-ring", "-m", "gpt2-355m", "--batch", "５１２"),
    ("speedup", "sip-ring", "-m", "gpt2-355m", "--tokens", "３e9"),
    ("fabric", "--pattern", "groups", "--group-size", "８"),
    ("sweep", "--vary", "link.wavelengths_per_fiber=2:8:٤", "-o", "-"),  # Arabic-Indic 4
    ("sweep", "--vary", "link.wavelengths_per_fiber=4,8", "--workers", "２", "-o", "-"),
    ("sweep", "--vary", "link.wavelengths_per_fiber=4,8", "--scheduler", "tcp://127.0.0.1:８７８６", "-o", "-"),
    ("optimize", "--maximize", "margin_db", "--vary", "link.data_rate=25 Gbit/s,32 Gbit/s",
     "--subject-to", "margin_db>=３"),
    ("budget", "--set", "laser.rin=-１３５ dB/Hz"),
    ("check", "--set", "fabric.gpus=１０２４"),
])
def test_issue42_non_ascii_digits_are_refused_everywhere(capsys, argv):
    """'８' (full-width) was read as 8 where '²' crashed: both are refused, so one text means one number."""
    refused(capsys, *argv)


def test_issue42_non_ascii_digits_in_files_are_refused(capsys, tmp_path):
    design = tmp_path / "d.toml"
    design.write_text('[laser]\nrin = "-１３５ dB/Hz"\n', encoding="utf-8")
    refused(capsys, "budget", str(design), fragment="rin")
    model = tmp_path / "m.toml"
    model.write_text('kind = "generic"\nname = "m"\nparameters = 1000000\nforward_flops = "４ GFLOP"\n'
                     'activation_memory = 1000\nmodel_parallel_traffic = 0\n', encoding="utf-8")
    refused(capsys, "speedup", "sip-ring", "-m", str(model))


def test_issue42_ascii_digits_still_read(capsys):
    code, out, err = run(capsys, "fabric", "--groups", " tp=8, dp=128 ", "-f", "json")
    assert code == 0, err
    code, _, err = run(capsys, "speedup", "sip-ring", "-m", "gpt2-355m", "--strategy", "tp=8", "--gpus", "64",
                       "--batch", "512", "--tokens", "3e9", "--baseline", "fattree-200")
    assert code == 0, err


# --- accepted contradictions and absurd values ----------------------------------------------------------------
def test_issue42_a_group_named_twice_is_refused_not_the_last_taken(capsys):
    refused(capsys, "fabric", "--groups", "tp=8,tp=4", fragment="tp is given twice")


def test_issue42_groups_that_do_not_lay_out_are_refused_before_the_fabric(capsys):
    refused(capsys, "fabric", "--groups", "tp=3", fragment="--groups 'tp=3'")


def test_issue42_a_group_size_is_bounded_by_the_clusters_gpus(capsys):
    refused(capsys, "fabric", "--pattern", "groups", "--group-size", "1000000000", fragment="--group-size")
    refused(capsys, "fabric", "--pattern", "groups", "--group-size", "2048", fragment="1,024 GPUs")


def test_issue42_a_group_size_has_no_effect_on_the_ring_pattern(capsys):
    refused(capsys, "fabric", "--pattern", "ring", "--group-size", "3", fragment="no effect")


def test_issue42_sweep_refuses_an_unknown_model_up_front(capsys):
    refused(capsys, "sweep", "--model", "nosuch", "--vary", "link.data_rate=25 Gbit/s,32 Gbit/s", "-o", "-",
            fragment="unknown model 'nosuch'")


def test_issue42_optimize_with_an_unknown_model_is_exit_2(capsys):
    refused(capsys, "optimize", "--model", "nosuch", "--maximize", "speedup", "--vary",
            "link.data_rate=25 Gbit/s,32 Gbit/s", fragment="unknown model 'nosuch'")


def test_issue42_a_batch_of_ten_to_the_eighteen_is_refused_with_its_bound(capsys):
    refused(capsys, "speedup", "sip-ring", "-m", "gpt2-355m", "--batch", "1000000000000000000",
            fragment="16,777,216")
    refused(capsys, "sweep", "-m", "gpt2-355m", "--batch", "1000000000000000000", "--vary", "fabric.gpus=64,128",
            "-o", "-", fragment="--batch")


def test_issue42_a_sweep_batch_without_a_model_is_refused(capsys):
    refused(capsys, "sweep", "--batch", "8", "--vary", "link.wavelengths_per_fiber=4,8", "-o", "-",
            fragment="only with --model")


def test_issue42_workers_are_bounded(capsys):
    refused(capsys, "sweep", "--vary", "link.wavelengths_per_fiber=4,8", "--workers", "100000000", "-o", "-",
            fragment="--workers")


# --- a model file's errors name the file ---------------------------------------------------------------------
def test_issue42_a_model_files_error_names_the_file(capsys, tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text((ZOO / "gpt2-355m.toml").read_text().replace('name = "gpt2-355m"', 'name = "mine"'))
    err = refused(capsys, "speedup", "sip-ring", "-m", str(path), "--strategy", "pp=7")
    assert str(path) in err and "mine" in err


def test_issue42_a_model_name_too_long_for_a_file_is_exit_2(capsys):
    refused(capsys, "speedup", "-m", "x" * 300, fragment="not a model of the zoo")


# --- a sweep over a non-link axis with a model: each combination a single point ------------------------------
def test_issue42_a_model_sweep_over_a_fabric_axis_writes_json_lines(capsys):
    """Each value of a fabric axis is a grid of one point: its error was a 0-d array, which JSON cannot write
    (exit 70)."""
    import json

    code, out, err = run(capsys, "sweep", "-m", "gpt2-355m", "--vary", "fabric.gpus=8,9", "-f", "jsonl", "-q")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["fabric.gpus"] for r in rows] == [8, 9] and all(r["error"] == "" for r in rows)


# --- SIGHUP ends a --workers sweep as SIGTERM does -----------------------------------------------------------
def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_ended_while_one_sends_a_result_end_at_once():
    """A worker killed halfway through sending its result leaves part of it in the pool's result pipe (seen when a
    signal ends a --workers sweep on a loaded machine: the command waited for ever in the pool's shutdown). Here
    that half message is written by hand: ending the workers still returns at once."""
    import struct
    from concurrent.futures import ProcessPoolExecutor

    from sipml.sweep_run import _end_workers

    pool = ProcessPoolExecutor(max_workers=2)
    writer = pool._result_queue._writer
    if getattr(pool, "kill_workers", None) is not None:  # Python 3.14 ends its workers its own way
        pool.shutdown()
        pytest.skip("the pool kills its own workers")
    assert pool.submit(abs, -3).result(timeout=60) == 3  # the workers are up
    os.write(writer.fileno(), struct.pack("!i", 1 << 20) + b"part of a result")  # 1 MiB announced, 16 B sent
    time.sleep(0.2)  # the manager thread reads the header and waits for the rest
    ending = threading.Thread(target=_end_workers, args=(pool,), daemon=True)
    ending.start()
    ending.join(timeout=20)
    if ending.is_alive():  # unblock the manager thread, so that the test process can still exit
        writer.close()
    assert not ending.is_alive(), "ending the workers waited on the half-sent result"


@pytest.mark.skipif(not Path("/proc").is_dir() or not hasattr(signal, "SIGHUP"), reason="needs Linux /proc")
@pytest.mark.parametrize("sig, code, word", [(signal.SIGHUP, 129, "hung up"), (signal.SIGTERM, 143, "terminated")])
@pytest.mark.parametrize("group", [False, True], ids=["command", "process-group"])
def test_issue42_a_signal_ends_a_workers_sweep_and_its_workers(tmp_path, sig, code, word, group):
    """Closing the terminal (SIGHUP to the command, or to its whole process group) during a --workers sweep: the
    command exits 128 + the signal and its workers end with it (they were left running for minutes)."""
    argv = [sys.executable, "-m", "sipml", "sweep", "dgx-a100", "--vary", "fabric.gpus=64:4096:200", "--vary",
            "electrical.nic_bandwidth=100 Gbit/s:800 Gbit/s:200", "--model", "gpt3-175b", "--workers", "2", "-q",
            "-o", str(tmp_path / "out" / "sweep.csv")]
    (tmp_path / "out").mkdir()
    errors = open(tmp_path / "stderr.txt", "wb")  # a file, not a pipe: a worker left alive cannot hold the test
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errors, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL), cwd=ROOT)
    errors.close()
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            workers = _children(proc.pid)
        assert len(workers) == 2, "the sweep's workers did not start"
        time.sleep(0.5)  # the workers are computing
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        returned = proc.wait(timeout=10)
        err = (tmp_path / "stderr.txt").read_text()
        assert returned == code, err
        assert err == f"sipml: {word}{' (the terminal closed)' if sig == signal.SIGHUP else ''}\n"
        end = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < end:
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers)
        assert not list((tmp_path / "out").iterdir())  # no output, no temporary file
    finally:
        for pid in [proc.pid, *workers]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=10)


def test_issue42_sighup_ignored_at_start_stays_ignored():
    """`nohup sipml …`: a SIGHUP the command was started to ignore is not turned into an exit."""
    from sipml.render import terminate_on_signal

    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with terminate_on_signal():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        with terminate_on_signal():
            assert callable(signal.getsignal(signal.SIGHUP))
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGHUP, previous)


# --- an unreachable scheduler is refused within the README's 10 s ---------------------------------------------
def _sweep_on(address: str) -> tuple[int, str, float]:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "sipml", "sweep", "--vary", "link.wavelengths_per_fiber=4,8",
                           "--scheduler", address, "-q", "-o", "-"], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    return done.returncode, done.stderr, time.monotonic() - start


def test_issue42_a_refused_scheduler_port_is_refused_at_once():
    pytest.importorskip("distributed")
    with socket.socket() as probe:  # a loopback port with nothing listening: bound, never listened on
        probe.bind(("127.0.0.1", 0))
        code, err, seconds = _sweep_on(f"tcp://127.0.0.1:{probe.getsockname()[1]}")
    assert code == 2 and "cannot reach the Dask scheduler" in err and err.count("\n") == 1, err
    assert seconds < 5  # was ~11 s: dask retried a refused port until its timeout


@pytest.mark.parametrize("answer", [b"", b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4],
                         ids=["silent", "not-dask"])
def test_issue42_a_scheduler_that_does_not_answer_is_refused_within_10_s(answer):
    pytest.importorskip("distributed")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    held = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            if answer:
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        code, err, seconds = _sweep_on(f"tcp://127.0.0.1:{server.getsockname()[1]}")
    finally:
        server.close()
        for conn in held:
            conn.close()
    assert code == 2 and err.startswith("sipml: error: --scheduler") and err.count("\n") == 1, err
    assert seconds < 10, seconds


# --- the fuzzer: every command's option values ----------------------------------------------------------------
EXAMPLES = int(os.environ.get("SIPML_FUZZ_EXAMPLES", "80"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
RUN_SECONDS = 10.0

# number texts: small ASCII counts (cheap runs), counts beyond every bound, other digits, signs, separators, floats
DIGITS = "0123456789０１２３４５６７８９²³¹٠١٢٣٤٥٦٧٨٩߀१२३"
NUMBER_TEXT = st.one_of(
    st.integers(-3, 64).map(str),
    st.integers(2 ** 24 + 1, 10 ** 40).map(str),
    st.just(str(2 ** 64)), st.just("9" * 4400),  # beyond the 4300 digits Python's int() reads
    st.text(alphabet=DIGITS, min_size=1, max_size=6),
    st.sampled_from(["", " ", "8 ", "+8", "-8", "1_0", "1e3", "8.0", "0x10", "nan", "inf", "-inf", "1e400", "Ⅷ",
                     "８", "²", "tp", "8,8", "8=8", "\x00", "'8'"]),
    st.text(max_size=8),
)
NAME_TEXT = st.one_of(st.text(max_size=12), st.sampled_from(["nosuch", "x" * 300, "nosuch.toml", "/", ".", "-",
                                                             "gpt2-355m.toml", "\x00", "gpt-3"]))
SPEEDUP = ("speedup", "sip-ring", "-m", "gpt2-355m", "--baseline", "fattree-200")
VARY = ("--vary", "link.wavelengths_per_fiber=4,8")
OPTIMIZE = ("optimize", "--maximize", "margin_db", "--vary", "link.data_rate=25 Gbit/s,32 Gbit/s")
FORMATS = ("table", "json", "csv", "markdown", "html")


def _bad_format(text: str) -> bool:
    """A format no command writes (a good one would run `validate` in full: seconds)."""
    return text not in FORMATS and text not in ("csv-long", "jsonl", "parquet")


def _not_a_folder(text: str) -> bool:
    """Not an existing folder (`report --design .` would be refused only after the report's work)."""
    try:
        return not Path(text or ".").is_dir()
    except (OSError, ValueError):
        return True


ARGV = st.one_of(
    st.builds(lambda v: ("budget", "--set", f"link.wavelengths_per_fiber={v}"), NUMBER_TEXT),
    st.builds(lambda v: ("budget", "--set", f"laser.rin={v} dB/Hz"), NUMBER_TEXT),
    st.builds(lambda v: ("check", "--set", f"fabric.gpus={v}"), NUMBER_TEXT),
    st.builds(lambda v: ("check", "--catalog", v), NAME_TEXT),
    st.builds(lambda v: ("fabric", "--message-size", f"{v} MB"), NUMBER_TEXT),
    st.builds(lambda p, v: ("fabric", "--pattern", p, "--group-size", v), st.sampled_from(["ring", "groups", "x"]),
              NUMBER_TEXT),
    st.builds(lambda a, b, n, m: ("fabric", "--groups", f"{n}={a},{m}={b}"), NUMBER_TEXT, NUMBER_TEXT,
              st.sampled_from(["tp", "dp", "pp", "ep", "xx", ""]), st.sampled_from(["tp", "dp", "pp", "ep"])),
    st.builds(lambda v: ("fabric", "--groups", v), st.text(max_size=12)),
    st.builds(lambda v: ("cost", "sip-ring", "--set", f"fabric.gpus={v}"), NUMBER_TEXT),
    st.builds(lambda v: ("cost", "sip-ring", "--catalog", v), NAME_TEXT),
    st.builds(lambda v: (*SPEEDUP, "--gpus", v), NUMBER_TEXT),
    st.builds(lambda v: (*SPEEDUP, "--batch", v), NUMBER_TEXT),
    st.builds(lambda v: (*SPEEDUP, "--tokens", v), NUMBER_TEXT),
    st.builds(lambda k, v: (*SPEEDUP, "--strategy", f"{k}={v}"),
              st.sampled_from(["tp", "pp", "dp", "cp", "microbatch", "zero", "ep", "interleave", "sp", "recompute",
                               "order", "precision", "stack", "nope"]), NUMBER_TEXT),
    st.builds(lambda v: ("speedup", "sip-ring", "-m", v), NAME_TEXT),
    st.builds(lambda v: ("models", "-f", v), st.text(max_size=8).filter(_bad_format)),
    st.builds(lambda v: ("sweep", "--link-only", "--vary", f"link.data_rate=10 Gbit/s:20 Gbit/s:{v}", "-o", "-"),
              NUMBER_TEXT),
    st.builds(lambda v: ("sweep", *VARY, "--link-only", "--workers", v, "-o", "-"), NUMBER_TEXT),
    st.builds(lambda v: ("sweep", "-m", "gpt2-355m", "--vary", "fabric.gpus=8,16", "--batch", v, "-o", "-"),
              NUMBER_TEXT),
    st.builds(lambda v: ("sweep", *VARY, "-m", v, "-o", "-"), NAME_TEXT),
    st.builds(lambda s, v: ("sweep", *VARY, "--scheduler", f"{s}://127.0.0.1:{v}", "-o", "-"),
              st.sampled_from(["tcp", "tls", "foo", ""]),
              NUMBER_TEXT.filter(lambda t: not (t.strip().isascii() and t.strip().isdigit()))),
    st.builds(lambda v: ("sweep", *VARY, "--scheduler", v, "-o", "-"),
              st.text(max_size=12).filter(lambda t: "://" not in t)),
    st.builds(lambda v: (*OPTIMIZE, "--subject-to", f"margin_db>={v}"), NUMBER_TEXT),
    st.builds(lambda v: (*OPTIMIZE, "--model", v), NAME_TEXT),
    st.builds(lambda v: ("optimize", "--maximize", v, *VARY), st.text(max_size=10)),
    st.builds(lambda v: ("validate", "-f", v), st.text(max_size=8).filter(_bad_format)),
    st.builds(lambda v: ("fields", v), st.text(max_size=10)),
    st.builds(lambda v: ("init", "-", "--set", f"fabric.gpus={v}"), NUMBER_TEXT),
    st.builds(lambda v: ("explain", v), st.text(max_size=10).filter(lambda t: t.strip() != "")),
    st.builds(lambda v: ("report", "--design", v), NAME_TEXT.filter(_not_a_folder)),
)


@FUZZ
@given(argv=ARGV.filter(lambda argv: not any("\x00" in a for a in argv)))  # no command line holds a NUL
def test_issue42_fuzz_every_commands_option_values(capsys, argv):
    """Every command with fuzzed option values: exit 0, 1 or 2, never 70; no traceback, no internal-error line;
    a refusal is one line; each run bounded."""
    start = time.monotonic()
    code, out, err = run(capsys, *argv)
    seconds = time.monotonic() - start
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err and "internal error" not in err, (argv, err)
    if code == 2:
        assert err.startswith("sipml: error:") and err.count("\n") == 1, (argv, err)
    assert seconds < RUN_SECONDS, (argv, seconds)
