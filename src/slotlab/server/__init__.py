"""The remote game server: FastAPI routes over services over the store.

Routes parse and map errors; services own the transactions (one per call); the store owns the
tables. See docs/server.md.
"""
