"""An operator's side of the seamless wallet: a small reference wallet server (examples, tests).

:mod:`slotlab.operator.reference_wallet` is what an operator's wallet looks like to slotlab:
``/wallet/authenticate``, ``/wallet/balance``, ``/wallet/debit``, ``/wallet/credit`` and
``/wallet/rollback``, every request and answer HMAC-SHA256 signed over the whole exchange,
idempotent by transaction id. docs/operator-wallet.md describes the protocol.
"""

from slotlab.operator.signing import (
    Keyring,
    SignatureError,
    check_request,
    check_response,
    sign_request,
    sign_response,
)

__all__ = ["Keyring", "SignatureError", "check_request", "check_response", "sign_request",
           "sign_response"]
