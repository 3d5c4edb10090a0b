"""The kinds of ledger entry: what each movement of money is, named once for every writer."""

DEMO_GRANT = "demo_grant"
BET = "bet"
WIN = "win"
REFUND = "refund"
JACKPOT = "jackpot"
ADMIN_CREDIT = "admin_credit"
ADMIN_DEBIT = "admin_debit"
FREE_ROUND_WIN = "free_round_win"  # the win of a Free Round Bonus round (no bet was debited)
VOID = "void"  # a malfunction void reversing one movement of a round; the ref names the incident
UNPAID_DISCARDED = "unpaid_discarded"  # 0: an incomplete round's win discarded after 24 months
PLAY_KINDS = (BET, WIN, REFUND, JACKPOT, FREE_ROUND_WIN, VOID)

# The kinds of jackpot pool entry (``jackpot_entries.kind``): a pool's value is the sum of them.
POOL_SEED = "seed"  # the reset value put in when a pool is made and after each award
POOL_CONTRIBUTION = "contribution"  # a max bet's share
POOL_AWARD = "award"  # a tier won: the value paid, rounded down to minor units (negative)
