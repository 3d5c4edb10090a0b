"""The money rules, in one place: every movement of a player's money is a ledger entry.

- :mod:`.kinds`: what each movement is (bet, win, refund, jackpot, free-round win, void, ...).
- :mod:`.batch`: a round's whole write (:class:`~.batch.RoundWrite`: its checks, its ledger
  lines, its round and key rows; a round's start, a choice that continues it, an
  auto-completion, a round ended before its play (a void, the better-of rule); with split
  commits, a round's opening and then its settling): every round's money, and the group
  commit that writes many rounds at once; :mod:`.postgres` and :mod:`.sqlite` are that write on
  each database, one statement or one transaction per batch, checking with the wallet locked
  what a round needs: the funds, the wallet's currency, one live round (a choice: its round
  still waiting as read), the key unused, the loss limits (:mod:`.loss_limits`), the pace.
- :mod:`.operator_rounds`: the same for the operator wallet's rounds, written in steps around
  the operator's debit and credit (a round whose debit is not confirmed withdrawn).
- :mod:`.entries`: a movement made inside an admin's or the housekeeping's ORM transaction
  (the wallet locked first): deposits, admin adjustments, incident voids, unpaid winnings
  discarded, a new player's play-money grant. No round's play is written here.

In every writer: a balance never goes below zero, each entry's ``ref`` is unique (a movement
already made cannot be made twice), and the wallet's balance is the sum of its entries
(:func:`~.entries.audit` checks it).
"""

from slotlab.ledger.entries import audit, lock_wallet, post
from slotlab.ledger.kinds import (
    ADMIN_CREDIT,
    ADMIN_DEBIT,
    BET,
    DEMO_GRANT,
    FREE_ROUND_WIN,
    JACKPOT,
    PLAY_KINDS,
    REFUND,
    UNPAID_DISCARDED,
    VOID,
    WIN,
)

__all__ = ["ADMIN_CREDIT", "ADMIN_DEBIT", "BET", "DEMO_GRANT", "FREE_ROUND_WIN", "JACKPOT",
           "PLAY_KINDS", "REFUND", "UNPAID_DISCARDED", "VOID", "WIN", "audit", "lock_wallet",
           "post"]
