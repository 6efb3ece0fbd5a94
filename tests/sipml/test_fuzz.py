"""Fuzzing the command line with design files and --set values: mutated sections, keys, units and
numbers (NaN, ±inf, huge, negative, zero, decimal commas, double dots, expressions, huge integers), broken TOML
and other encodings. Every run, in-process through `sipml.cli.main`: no traceback, exit code 0, 1 or 2, exit 2
whenever the input is invalid, every error one line naming the file (and the key a value was given for), and a
bounded run time. Bounded in the suite by a fixed `max_examples` (150 each, ~3 s in all); the long run:
SIPML_FUZZ_EXAMPLES=2000 python -m pytest tests/sipml/test_fuzz.py."""

import json
import math
import os
import time
import tomllib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.fields import specs
from fabric.ocs_torus import ShapeSpec
from photonics.fieldspecs import LossListSpec
from sipml.cli import main
from fabric.cluster_design import ClusterDesign
from sipml.design_files import ALL_SECTIONS, builtin_designs, key_applies, load_design

RUN_SECONDS = 10.0  # the slowest legitimate run (a 47 000-channel crosstalk table) takes ~3 s on one core
EXAMPLES = int(os.environ.get("SIPML_FUZZ_EXAMPLES", "150"))  # the short run of the suite; raise it for a long run
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
BUILTIN_DATA = {name: tomllib.loads(path.read_text(encoding="utf-8")) for name, path in builtin_designs().items()}
UNITS = ["Gbit/s", "bit/s", "GHz", "Hz", "nm", "um", "m", "km", "mW", "W", "dBm", "dB", "dB/cm", "dB/km", "K",
         "degC", "s", "us", "ms", "MB", "B", "USD", "A/W", "uA", "pJ/bit", "K/W", "1/K", "pA/Hz**0.5", "%", "",
         "furlongs", "Gbps"]
KEYS = sorted({key for cls in ALL_SECTIONS.values() for key in specs(cls)})
FIELDS = [(name, key) for name, cls in ALL_SECTIONS.items() for key in specs(cls)]
APPLYING = {name: [(s, k) for s, k in FIELDS if key_applies(design, s, k)]
            for name, design in {"": ClusterDesign(), **{n: load_design(n) for n in builtin_designs()}}.items()}

# Texts no field of any kind accepts: a unit spec refuses them, and they are not names (letters, digits, '_-.')
# nor choices. A run given one of them must exit 2.
number = st.one_of(st.integers(-10 ** 6, 10 ** 6), st.floats(allow_nan=False, allow_infinity=False, width=32))
INVALID_TEXT = st.one_of(
    st.builds(lambda a, b, u: f"{a},{b} {u}", st.integers(0, 99), st.integers(0, 99), st.sampled_from(UNITS)),
    st.builds(lambda a, b, c, u: f"{a}.{b}.{c} {u}", st.integers(0, 9), st.integers(0, 9), st.integers(0, 9),
              st.sampled_from(UNITS)),
    st.builds(lambda a, op, b, u: f"{a}{op}{b} {u}", st.integers(0, 99), st.sampled_from(["*", "**", "+", " - ", "/"]),
              st.integers(0, 99), st.sampled_from(UNITS)),
    st.builds(lambda u: f"{u} alone", st.sampled_from(UNITS[:-3])),
    st.builds(lambda x, u, q: f"{q}{x} {u}" if len(q) == 1 else f"{x} {u}{q[0]}", number, st.sampled_from(UNITS),
              st.sampled_from(["'", '"', "`", "''"])),
    st.builds(lambda n, u: f"{'9' * n} {u}", st.integers(31, 6000), st.sampled_from(UNITS)),
    st.builds(lambda u: f"1e400 {u}", st.sampled_from(UNITS[:-2])),
    st.just("nan m"), st.just("(1) m"), st.just("10**10**10 Gbit/s"), st.just("2*3 mW"), st.just(""),
)
ANY_TEXT = st.one_of(
    INVALID_TEXT,
    st.builds(lambda x, u: f"{x} {u}".strip(), number, st.sampled_from(UNITS)),
    st.builds(lambda x, u: f"{x!r}{u}", st.floats(width=64), st.sampled_from(UNITS)),
    st.sampled_from(["inf dB", "-inf dB", "nan", "inf", "0", "-0", "0 m", "-3 dB", "given", "comb", "none",
                     "gpu.a100_sxm4", "gpu.b200", "electrical", "ideal", "sip-ocs", "full-thermal", "bend-fit"]),
    st.text(max_size=30),
)
INVALID_NATIVE = st.one_of(st.just(math.nan), st.just(math.inf), st.just(-math.inf), st.just(10 ** 4000),
                           st.just(-(10 ** 4000)), st.just([1, 2]), st.just({"a": 1}))
ANY_NATIVE = st.one_of(INVALID_NATIVE, st.integers(-10 ** 20, 10 ** 20), st.floats(width=64), st.booleans(),
                       st.sampled_from([0, 1, 2, 8, 16, 1024, 131072, 2 ** 20, 2 ** 20 + 1, -1, 0.5, 1e308]))


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_text(data: dict) -> str:
    lines = []
    for section, values in data.items():
        if not isinstance(values, dict):
            lines.append(f"{json.dumps(section)} = {toml_value(values)}")
    for section, values in data.items():
        if isinstance(values, dict):
            lines.append(f"[{json.dumps(section)}]")
            lines += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


section_name = st.one_of(st.sampled_from(list(ALL_SECTIONS)), st.sampled_from(["rng", "links", "Fabric", "", "x y"]))
key_name = st.one_of(st.sampled_from(KEYS), st.sampled_from(["data_rat", "radius ", "GPUS", "", "a.b", "é"]))


CATALOG_NAMES = ["gpu.a100_sxm4", "gpu.h100_sxm5", "server.dgx_h100_host", "none", "amplifier.soa", "ocs.polatis_384",
                 "switch.ib_ndr_64p", "nic.connectx7_ndr_400g", "transceiver.osfp_800g_dr8", "gpu.b200"]


@st.composite
def in_range(draw, spec):
    """A value the field accepts on its own (bounds between fields and evaluation may still refuse it)."""
    if spec.unit == "choice":
        return draw(st.sampled_from(spec.choices))
    if spec.unit == "text":
        return draw(st.sampled_from(CATALOG_NAMES))
    if spec.integer:
        return draw(st.integers(int(spec.lo or 0), int(min(spec.hi, 2 ** 20))))
    if isinstance(spec, LossListSpec):
        return draw(st.sampled_from(["", "patch panel: 0.5 dB", "a: 1 dB; b: 30 dB"]))
    if isinstance(spec, ShapeSpec):
        return draw(st.sampled_from([*spec.choices, "4x4x4", "2x4x8", "8x8x8", "1x1x1", "16x16x24"]))
    default = abs(specs_default(spec) or 0.0) or 1.0  # a default held as a word (None) has no scale
    lo = spec.lo if spec.lo is not None else -10 * default
    hi = spec.hi if spec.hi is not None else 1000 * default
    x = draw(st.floats(lo, hi, exclude_min=spec.lo_open, exclude_max=spec.hi_open))
    unit = spec.unit.split("|")[0].strip()  # a spectral interval in its frequency form
    return x if spec.unit == "1" else f"{x!r} {unit}"


def specs_default(spec) -> float:
    return spec.parse(spec.default_text if spec.unit != "1" else float(spec.default_text))


@st.composite
def mutation(draw, base: str = ""):
    """(section, key, value, invalid): one value set in a design; `invalid` when no field could accept it. Values
    in range go mostly to keys that have an effect in the base design, so that designs reach evaluation."""
    kind = draw(st.sampled_from(["in range"] * 5 + ["invalid text"] * 2 + ["invalid native", "text", "native"]))
    if kind == "in range":
        section, key = draw(st.sampled_from(APPLYING[base] if draw(st.integers(0, 9)) < 8 else FIELDS))
        return section, key, draw(in_range(specs(ALL_SECTIONS[section])[key])), False
    if draw(st.integers(0, 9)) < 7:  # mostly a key of the section, so values reach their parsers
        section, key = draw(st.sampled_from(FIELDS))
    else:
        section, key = draw(section_name), draw(key_name)
    if kind == "invalid text":
        return section, key, draw(INVALID_TEXT), True
    if kind == "invalid native":
        return section, key, draw(INVALID_NATIVE), True
    if kind == "text":
        return section, key, draw(ANY_TEXT), False
    return section, key, draw(ANY_NATIVE), False


def check_run(argv: list[str], names: tuple[str, ...], invalid: bool, key: str | None, capsys) -> int:
    start = time.perf_counter()
    code = main(argv)
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert elapsed < RUN_SECONDS, (argv, elapsed)
    assert "Traceback" not in err and "Traceback" not in out, err
    assert code in (0, 1, 2), (argv, code, err)
    if invalid:
        assert code == 2, (argv, code, out[-300:], err)
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("sipml: error: "), err
        assert any(name in err for name in names), (names, err)
        if invalid and key:
            assert key in err, (key, err)
    return code


def named(changes, single: bool) -> str | None:
    """What the error of a single invalid value must name: its key, or its section when that is unknown."""
    section, key, _, invalid = changes[0]
    if not (single and invalid):
        return None
    if section not in ALL_SECTIONS:
        return section if section.isidentifier() else None
    return key if key.isidentifier() else None


def based(bases):
    """(base, changes): a base design and one to three mutations of it."""
    return st.sampled_from(bases).flatmap(
        lambda base: st.tuples(st.just(base), st.lists(mutation(base), min_size=1, max_size=3,
                                                       unique_by=lambda c: (c[0], c[1]))))  # a key --set once


@FUZZ
@given(design=based(["", *BUILTIN_DATA]), command=st.sampled_from(["check", "budget", "fabric", "check"]),
       damage=st.sampled_from(["none"] * 6 + ["cut", "byte", "utf-16", "latin-1", "bom"]), where=st.integers(0, 10 ** 6))
def test_fuzzed_design_files(tmp_path_factory, capsys, design, command, damage, where):
    base, changes = design
    data = {name: dict(values) for name, values in BUILTIN_DATA.get(base, {}).items()}
    for section, key, value, _ in changes:
        data.setdefault(section, {})[key] = value
    text = toml_text(data)
    raw = text.encode("utf-8")
    broken = False
    if damage == "cut":
        raw = raw[: where % (len(raw) + 1)]
    elif damage == "byte":
        i = where % (len(raw) + 1)
        raw = raw[:i] + bytes([where % 256]) + raw[i:]
    elif damage == "utf-16":
        raw, broken = text.encode("utf-16"), True
    elif damage == "latin-1":
        raw = text.encode("latin-1", errors="replace")
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            broken = True
    elif damage == "bom":
        raw = b"\xef\xbb\xbf" + raw
    path = tmp_path_factory.mktemp("fuzz") / "design.toml"
    path.write_bytes(raw)
    single = len(changes) == 1 and damage in ("none", "bom")
    check_run([command, str(path)], (str(path),), broken or (single and changes[0][3]), named(changes, single),
              capsys)


@FUZZ
@given(design=based(["sip-ring", "sip-ocs", "dgx-h100", "ideal"]),
       command=st.sampled_from(["check", "fabric", "budget", "cost"]), raw=st.lists(st.text(max_size=20), max_size=1))
def test_fuzzed_set_values(capsys, design, command, raw):
    base, changes = design
    argv = [command, base]
    for section, key, value, _ in changes:
        text = value if isinstance(value, str) else toml_value(value)
        argv += ["--set", f"{section}.{key}={text}"]
    argv += [a for item in raw for a in ("--set", item)]
    single = len(changes) == 1 and not raw
    check_run(argv, (base,), single and changes[0][3], named(changes, single), capsys)


def test_the_fuzz_oracle_sees_a_wrong_exit_code(capsys):
    """The oracle is not vacuous: a valid design flagged invalid fails it."""
    with pytest.raises(AssertionError):
        check_run(["check"], ("sip-ring",), True, None, capsys)
