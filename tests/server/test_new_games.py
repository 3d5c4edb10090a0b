"""What the two new games need of the server beyond their own rules (issues 9 and 10): HELP's
operator details and procedures (server settings), and Superstars' currency cap on top of its
10,000x cap. The variants are in test_variants.py, Super 12 Stars' platform rules in
test_super_12_stars_server.py.
"""

from __future__ import annotations

import pytest

from slotlab.server.services.help import duration_text
from slotlab.server.settings import Settings


def test_help_states_the_operator_and_its_procedures(make_server):
    srv = make_server(operator_name="Casino Example Ltd",
                      operator_contact="support@casino.example, +356 2000 0000",
                      operator_terms_url="https://casino.example/terms",
                      auto_complete_after_s=7200, session_idle_s=900)
    with srv.client() as c:
        op = c.get("/api/games/pick-test").json()["operator"]
    assert op["name"] == "Casino Example Ltd"
    assert op["contact"] == "support@casino.example, +356 2000 0000"
    assert op["terms_url"] == "https://casino.example/terms"
    # The procedure text states the server's real timeouts.
    assert op["auto_complete_after_s"] == 7200 and "kept for 2 hours" in op["unfinished_rounds"]
    assert "random choice" in op["unfinished_rounds"]
    assert op["inactivity_timeout_s"] == 900 and "15 minutes without activity" in op["inactivity"]


def test_help_without_operator_settings_and_with_the_operators_own_text(make_server):
    srv = make_server()
    with srv.client() as c:
        op = c.get("/api/games/instant-test").json()["operator"]
    assert (op["name"], op["contact"], op["terms_url"]) == (None, None, None)
    assert "kept for 24 hours" in op["unfinished_rounds"]
    assert "30 minutes" in op["inactivity"]
    own = "Unfinished rounds are completed as our terms say."
    srv2 = make_server(unfinished_rounds_text=own)
    with srv2.client() as c:
        assert c.get("/api/games/instant-test").json()["operator"]["unfinished_rounds"] == own


@pytest.mark.parametrize(("seconds", "text"), [
    (86400, "24 hours"), (172800, "2 days"), (3600, "1 hour"), (1800, "30 minutes"),
    (90, "90 seconds"), (0.5, "0.5 seconds"), (1, "1 second"), (60, "1 minute")])
def test_durations_in_words(seconds, text):
    assert duration_text(seconds) == text


def test_operator_settings_from_the_environment(monkeypatch):
    monkeypatch.setenv("SLOTLAB_OPERATOR_CONTACT", "help@op.example")
    monkeypatch.setenv("SLOTLAB_VARIANTS", '{"superstars": "superstars-92"}')
    s = Settings()
    assert s.operator_contact == "help@op.example"
    assert s.variants == {"superstars": "superstars-92"}
