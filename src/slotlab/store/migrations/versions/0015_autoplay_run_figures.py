"""An autoplay run's figures kept on its row: rounds played, bets charged, everything paid and
the best payment. Each round's write adds its share, so that a round of a long run no longer
counts all of the run's rounds before it. Existing runs are counted once from their rounds.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

_FIGURES = ("rounds_played", "total_bet", "total_win", "best_win")


def upgrade() -> None:
    with op.batch_alter_table("autoplay_runs") as t:
        for name in _FIGURES:
            t.add_column(sa.Column(name, sa.BigInteger, nullable=False, server_default="0"))
    # The same count as slotlab.ledger.batch.RUN_FIGURES, as it stood when this was written.
    op.execute("""UPDATE autoplay_runs SET
      rounds_played = (SELECT count(*) FROM rounds o WHERE o.autoplay_run_id = autoplay_runs.id),
      total_bet = (SELECT coalesce(sum(CASE WHEN o.free_round_id IS NULL
                                            AND o.status <> 'cancelled' THEN o.bet ELSE 0 END), 0)
                   FROM rounds o WHERE o.autoplay_run_id = autoplay_runs.id),
      total_win = (SELECT coalesce(sum(o.win + o.jackpot_win), 0)
                   FROM rounds o WHERE o.autoplay_run_id = autoplay_runs.id),
      best_win = (SELECT coalesce(max(o.win + o.jackpot_win), 0)
                  FROM rounds o WHERE o.autoplay_run_id = autoplay_runs.id)""")


def downgrade() -> None:
    with op.batch_alter_table("autoplay_runs") as t:
        for name in reversed(_FIGURES):
            t.drop_column(name)
