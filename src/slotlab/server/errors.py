"""API errors: JSON ``{"error": {"code", "message"}}`` with a stable code per cause."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra
        self.counted = False  # in the error metrics already (sent by a batched path)

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}, **self.extra}


def bad_request(code: str, message: str) -> ApiError:
    return ApiError(400, code, message)


def unprocessable(code: str, message: str) -> ApiError:
    return ApiError(422, code, message)


def unauthorized(message: str = "missing or invalid token", code: str = "unauthorized") -> ApiError:
    return ApiError(401, code, message)


def insufficient_funds(balance: int, amount: int) -> ApiError:
    return ApiError(402, "insufficient_funds", f"balance {balance} is below {amount}")


def forbidden(code: str, message: str) -> ApiError:
    return ApiError(403, code, message)


def not_found(code: str, message: str) -> ApiError:
    return ApiError(404, code, message)


def conflict(code: str, message: str, **extra: Any) -> ApiError:
    return ApiError(409, code, message, **extra)


def too_fast(message: str) -> ApiError:
    return ApiError(429, "too_fast", message)
