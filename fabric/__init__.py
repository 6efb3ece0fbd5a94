"""Fabrics from link estimates: topologies, collectives, and cost and power roll-ups from a sourced catalog."""

from fabric import shipped  # noqa: F401  (registers the built-in fabric kinds)
