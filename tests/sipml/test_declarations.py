"""The project's declared sections: they validate on construction with the errors a design file gets; every count
is bounded; the declarations say when each key applies and which axes a sweep may vary."""

import dataclasses

import pytest

from core.errors import InputError
from core.fields import FieldError, When, conditions_of, specs, sweepable
from fabric.cluster_design import MAX_GPUS, ClusterDesign, FabricSection
from photonics.link_design import SECTIONS, LinkDesign, LinkSection, TuningSection
from sipml.cli import main
from sipml.design_files import FABRIC_SECTIONS

ALL = {**SECTIONS, **FABRIC_SECTIONS}


def cli_error(capsys, tmp_path, section: str, line: str) -> str:
    path = tmp_path / "d.toml"
    path.write_text(f"[{section}]\n{line}\n")
    assert main(["check", str(path)]) == 2
    return capsys.readouterr().err.strip()


@pytest.mark.parametrize("kwargs, toml_line, fragment", [
    ({"data_rate": 25}, "data_rate = 25", "got the bare number 25; write it with its unit"),
    ({"wavelengths_per_fiber": 0}, "wavelengths_per_fiber = 0", "0 is out of range, expected ≥ 1, ≤ 4096"),
    ({"data_rate": "2,5 Gbit/s"}, 'data_rate = "2,5 Gbit/s"', "decimals with a point"),
    ({"data_rate": "25 GHz"}, 'data_rate = "25 GHz"', "[information]"),
    ({"ber": float("nan")}, "ber = nan", "got NaN"),
])
def test_the_python_api_refuses_what_the_cli_refuses_with_the_same_words(capsys, tmp_path, kwargs, toml_line,
                                                                          fragment):
    with pytest.raises(FieldError) as info:
        LinkSection(**kwargs)
    api = str(info.value)
    cli = cli_error(capsys, tmp_path, "link", toml_line)
    assert fragment in api and fragment in cli
    assert api.startswith("[link] ")
    assert cli.endswith(api.split(": ", 1)[1])  # the CLI adds only the file (and shows the TOML value)


def test_the_python_api_takes_units_quantities_and_si_floats():
    from core.units import Q_  # pint's registry, built when asked for (not at the suite's collection)

    assert LinkSection(data_rate="50 Gbit/s").data_rate == 50e9
    assert LinkSection(data_rate=Q_(50, "Gbit/s")).data_rate == 50e9
    assert LinkSection(data_rate=50e9).data_rate == 50e9  # a float is already the field's SI value
    with pytest.raises(FieldError, match=r"\[link\] data_rate = 50.0: 50 bit/s is out of range"):
        LinkSection(data_rate=50.0)


def test_dataclass_replace_validates_too():
    with pytest.raises(FieldError, match="wavelengths_per_fiber"):
        dataclasses.replace(LinkSection(), wavelengths_per_fiber=-1)


def test_a_design_refuses_a_part_of_the_wrong_type():
    with pytest.raises(InputError, match="LinkDesign link = 5: expected a LinkSection"):
        LinkDesign(link=5)
    with pytest.raises(InputError, match="expected a FabricSection"):
        ClusterDesign(fabric=LinkSection())


def test_job_gpus_above_gpus_is_a_contradiction():
    with pytest.raises(FieldError, match=r"\[fabric\] job_gpus = 2048 is above gpus = 1024"):
        FabricSection(job_gpus=2048)
    assert FabricSection(job_gpus=1024).job_gpus == 1024


def test_full_thermal_temperature_outside_its_range_is_a_contradiction():
    with pytest.raises(FieldError, match=r"temperature = 400 K is above t_max = 380 K"):
        TuningSection(strategy="full-thermal", temperature=400.0)
    with pytest.raises(FieldError, match=r"t_max = 270 K is not above t_min = 280 K"):
        TuningSection(strategy="full-thermal", t_max=270.0, temperature=275.0)
    # nearest-channel tuning uses none of the three: their relation is not checked where they have no effect
    assert TuningSection(temperature=400.0).temperature == 400.0


def test_every_count_has_an_upper_bound():
    unbounded = [(name, key) for name, cls in ALL.items() for key, spec in specs(cls).items()
                 if spec.integer and spec.hi is None]
    assert unbounded == []


def test_gpus_are_bounded_at_two_to_the_twenty_and_reach_frontier_scale():
    spec = specs(FabricSection)["gpus"]
    assert spec.hi == MAX_GPUS == 2 ** 20 >= 1_000_000
    assert "≤ 1048576" in spec.range_text()
    assert FabricSection(gpus=1_000_000).gpus == 1_000_000
    with pytest.raises(FieldError, match="out of range"):
        FabricSection(gpus=MAX_GPUS + 1)


def test_applies_when_is_data_naming_an_existing_key_and_value():
    for cls in ALL.values():
        for key, spec in specs(cls).items():
            for cond in conditions_of(spec.applies_when):
                assert isinstance(cond, When)
                target = specs(ALL[cond.section])[cond.key]
                if cond.above is None:
                    assert set(cond.values) <= set(target.choices), (key, cond)
                else:
                    assert target.numeric, (key, cond)


def test_sweepable_axes_are_the_numeric_design_parameters():
    link_axes = sweepable(LinkSection)
    assert "data_rate" in link_axes and "wavelengths_per_fiber" in link_axes
    assert "bend_fit_coefficient" not in sweepable(SECTIONS["ring"])  # a fit constant
    assert "kind" not in sweepable(FabricSection) and "gpus" in sweepable(FabricSection)
    for cls in ALL.values():
        for key, spec in specs(cls).items():
            assert not (spec.sweepable and not spec.numeric), key
