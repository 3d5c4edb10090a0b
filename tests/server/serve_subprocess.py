"""Run a real server process on the test games: ``python serve_subprocess.py PORT``.

Settings come from ``SLOTLAB_*`` environment variables, as in production. Used by the kill -9
test, which needs a process it can kill.
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).parent))

from server_games import make_test_games

from slotlab.server.app import create_app
from slotlab.server.settings import Settings

if __name__ == "__main__":
    app = create_app(Settings(), games_override=make_test_games())
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
