"""slotlab: an open platform for slot games."""

__version__ = "0.1.0"
