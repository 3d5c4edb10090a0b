"""Every ``wait_for_function`` in the browser tests is given a function, not an expression.

Playwright evaluates an expression string again at each poll, with ``eval`` in the page; the
client's Content-Security-Policy forbids ``eval`` outside the first, synchronous check, so a wait
whose condition is not already true fails with ``EvalError`` (seen in CI). A function is
evaluated once and then called, which the policy allows.
"""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).parent


def _text(node: ast.expr, constants: dict[str, ast.expr]) -> str | None:
    """The literal start of a string argument, following module constants; None if not a string."""
    if isinstance(node, ast.Name) and node.id in constants:
        return _text(constants[node.id], constants)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return _text(node.values[0], constants) or ""
    if isinstance(node, ast.BinOp):
        return _text(node.left, constants)
    return None


def expression_waits(source: str) -> list[int]:
    """Lines of the ``wait_for_function`` calls whose first argument is not a function's text."""
    tree = ast.parse(source)
    constants = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign)
                 for t in n.targets if isinstance(t, ast.Name)}
    lines = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "wait_for_function" and node.args):
            text = _text(node.args[0], constants)
            if text is None or not text.lstrip().startswith(("(", "function", "async")):
                lines.append(node.lineno)
    return lines


def test_the_check_finds_an_expression_wait() -> None:
    assert expression_waits('page.wait_for_function("document.title === 1")') == [1]
    assert expression_waits('X = "() => 1"\npage.wait_for_function(X)') == []
    assert expression_waits('page.wait_for_function(f"() => {n} > 1")') == []


def test_every_wait_for_function_is_given_a_function() -> None:
    found = {path.name: lines for path in sorted(HERE.glob("*.py"))
             if (lines := expression_waits(path.read_text()))}
    assert found == {}
