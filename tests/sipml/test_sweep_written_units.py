"""A sweep's axis written in a unit is shown in it as the field reads it: a byte field's "1 MB" is 10⁶ bytes."""

import csv
import io

from sipml.cli import main


def test_a_byte_axis_written_in_megabytes_reads_back_in_megabytes(capsys):
    assert main(["sweep", "--vary", "fabric.message_size=1MB,2MB", "-f", "csv", "--quiet"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [float(r["fabric.message_size [MB]"]) for r in rows] == [1.0, 2.0]
    assert [float(r["fabric.message_size [byte]"]) for r in rows] == [1e6, 2e6]
