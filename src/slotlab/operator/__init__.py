"""An operator's side of the seamless wallet: a small reference wallet server (examples, tests).

:mod:`slotlab.operator.reference_wallet` is what an operator's wallet looks like to slotlab:
``/wallet/authenticate``, ``/wallet/balance``, ``/wallet/debit``, ``/wallet/credit`` and
``/wallet/rollback``, HMAC-SHA256 signed, idempotent by transaction id. docs/operator-wallet.md
describes the protocol.
"""

from slotlab.operator.signing import SIGNATURE_HEADER, sign, verify

__all__ = ["SIGNATURE_HEADER", "sign", "verify"]
