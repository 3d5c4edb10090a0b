"""Moved: the operator-wallet operations log is persistence and lives in
:mod:`slotlab.store.operator_wallet`. This name stays so that older imports keep working."""

from slotlab.store.operator_wallet import (
    CREDIT,
    DEBIT,
    DONE,
    KEEP_UNPAID,
    OPEN_STATUSES,
    PENDING,
    REFUSED,
    ROLLBACK,
    ROLLED_BACK,
    ROLLING_BACK,
    UNPAID,
    OperatorWalletOp,
    OperatorWalletStore,
    OpsBase,
    credit_txid,
    debit_txid,
    rollback_txid,
)

__all__ = ["CREDIT", "DEBIT", "DONE", "KEEP_UNPAID", "OPEN_STATUSES", "PENDING", "REFUSED",
           "ROLLBACK", "ROLLED_BACK", "ROLLING_BACK", "UNPAID", "OperatorWalletOp",
           "OperatorWalletStore", "OpsBase", "credit_txid", "debit_txid", "rollback_txid"]
