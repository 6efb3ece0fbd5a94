"""Fabrics from link estimates: topologies, collectives, and cost and power roll-ups from a sourced catalog."""
