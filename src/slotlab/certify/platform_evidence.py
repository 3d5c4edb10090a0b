"""The platform's own evidence for the requirements no game's rule map covers: the server's
tests for fail-closed play (R5), sessions reconstructed (R8), idempotent money (R11), funds
(R12), session figures and deposit limits (R19), account security (R20), the live RTP watch
(R22) and free play with the same math (R23), named here per requirement and run in the
bundle's run (as the rule map's are: from the source checkout, each result recorded).
"""

from __future__ import annotations

from typing import Any

from slotlab.certify.rule_map import Row, Test, run_tests

# Each requirement: what its tests show, and the tests (file, function), each a real server
# on loopback over SQLite (and PostgreSQL where SLOTLAB_TEST_DATABASE_URL names one).
PLATFORM_TESTS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "R5": ("the random source failing refuses a round before any bet and leaves a waiting "
           "choice waiting; the database failing refuses a round and takes no bet", (
        ("tests/server/test_fail_closed.py",
         "test_a_failed_random_source_refuses_the_round_and_takes_no_bet"),
        ("tests/server/test_fail_closed.py",
         "test_a_failed_random_source_leaves_a_choice_waiting"),
        ("tests/server/test_fail_closed.py",
         "test_a_failed_database_refuses_the_round_and_takes_no_bet"))),
    "R8": ("an auditor reconstructs a session from the records alone: every round and money "
           "movement of one login in order, opening and closing balances, checked against "
           "each other; a balance that does not follow is named", (
        ("tests/server/test_session_records.py",
         "test_a_session_is_reconstructed_from_the_records_alone"),
        ("tests/server/test_session_records.py",
         "test_a_tampered_balance_breaks_the_chain_it_is_read_from"))),
    "R11": ("a retried round, choice or concurrent retry of one key moves money once and gets "
            "the first answer (general and fast path); an incident's reversal is applied once",
            (
        ("tests/server/test_api.py", "test_instant_round_moves_money_once"),
        ("tests/server/test_api.py", "test_idempotent_round_retry_and_reused_key"),
        ("tests/server/test_api.py", "test_idempotent_choice_retry"),
        ("tests/server/test_concurrency.py",
         "test_concurrent_retries_of_one_key_move_money_once"),
        ("tests/server/test_fast_rounds.py",
         "test_a_retried_key_is_answered_once_and_moves_money_once"),
        ("tests/server/test_incident_voids.py",
         "test_completed_rounds_of_an_incident_are_reversed_once"))),
    "R12": ("a bet above the balance is refused with no round; the balance never goes below "
            "zero, a reversal included", (
        ("tests/server/test_api.py", "test_insufficient_funds_never_negative"),
        ("tests/server/test_fast_rounds.py",
         "test_short_funds_are_refused_here_with_the_general_paths_answer"),
        ("tests/server/test_incident_voids.py",
         "test_a_reversal_never_takes_the_balance_below_zero"))),
    "R19": ("under gb every round's answer carries the session's net position and elapsed "
            "time; a deposit limit over a day, a week or a month refuses the credit that would "
            "pass it and takes nothing", (
        ("tests/server/test_profiles.py", "test_gb_profile"),
        ("tests/server/test_responsible.py",
         "test_a_deposit_limit_refuses_the_credit_that_would_pass_it"))),
    "R20": ("failed logins from an address are refused with Retry-After after a few; guesses "
            "at one account are slowed; a missing, wrong or admin token is no player session; "
            "an idle session ends after the profile's timeout", (
        ("tests/server/test_auth_hardening.py",
         "test_failed_logins_are_limited_per_address_with_retry_after"),
        ("tests/server/test_auth_hardening.py",
         "test_an_account_under_guessing_slows_each_guess_but_never_refuses"),
        ("tests/server/test_api.py",
         "test_tokens_missing_bad_and_admin_token_is_not_a_player_token"),
        ("tests/server/test_inactivity.py", "test_an_idle_session_ends_with_its_own_reason"),
        ("tests/server/test_inactivity.py",
         "test_the_profile_sets_the_timeout_and_help_states_it"))),
    "R22": ("a game whose live rounds pay more than its model alerts (metric, admin API, log) "
            "and a right one over as many rounds does not; the watch's periodic check logs the "
            "alert with no one asking", (
        ("tests/server/test_rtp_watch.py",
         "test_a_game_paying_wrong_alerts_and_a_right_one_does_not"),
        ("tests/server/test_rtp_watch.py",
         "test_the_periodic_tick_logs_an_alert_with_no_one_asking"))),
    "R23": ("a demo round of each seed game is the real round of its seed (same model, same "
            "events, same win); the rules a language shows are read from the game's own", (
        ("tests/server/test_demo.py",
         "test_a_demo_round_of_each_seed_game_is_the_real_round_of_its_seed"),
        ("tests/i18n/test_game_texts.py",
         "test_a_rule_read_and_filled_in_english_is_the_rule_itself"))),
}


def platform_tests(marker: str | None) -> dict[str, Any]:
    """Run every requirement's tests (``marker`` as for the rule map: ``none`` runs none) and
    record each result."""
    rows = [Row(rid, shows, "", "", [Test(f, name) for f, name in tests])
            for rid, (shows, tests) in PLATFORM_TESTS.items()]
    run = run_tests(rows, marker)
    return {"run": run, "rows": [
        {"clause": r.section, "shows": r.sentence,
         "tests": [{"test": t.node, "result": t.result} for t in r.tests]} for r in rows]}


def outcome(platform: dict[str, Any] | None, rid: str) -> tuple[str, bool | None]:
    """What the requirement's tests showed in this run: a text of each result, and True (all
    passed), False (one failed) or None (not run, not found or skipped: nothing shown)."""
    if platform is None:
        return "the platform's tests were not part of this bundle's format", None
    row = next((r for r in platform["rows"] if r["clause"] == rid), None)
    if row is None:
        return "no platform test is named for it", None
    results = [t["result"] for t in row["tests"]]
    counts = ", ".join(f"{results.count(k)} {k}" for k in sorted(set(results)))
    text = (f"platform tests run in this bundle ({counts}): {row['shows']} "
            f"[{', '.join(t['test'].split('::')[-1] for t in row['tests'])}]")
    if "failed" in results:
        return text, False
    if results and all(r == "passed" for r in results):
        return text, True
    return text, None
