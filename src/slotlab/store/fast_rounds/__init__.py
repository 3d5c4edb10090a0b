"""The fast round write: a completed round's rows in one batched transaction (PostgreSQL with
asyncpg, SQLite with its own writer thread). The web side is :mod:`slotlab.server.fast_rounds`."""
