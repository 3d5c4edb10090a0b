"""The shipped migrations form one line (several may be written side by side and applied as
heads while they are being written; a release has exactly one head), and every file is named by
its revision."""

from __future__ import annotations

from alembic.config import Config
from alembic.script import ScriptDirectory

from slotlab.store.engine import MIGRATIONS


def test_the_migrations_form_one_line_named_by_revision():
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    script = ScriptDirectory.from_config(cfg)
    assert len(script.get_heads()) == 1
    revisions = list(script.walk_revisions())
    assert revisions[-1].down_revision is None
    for rev in revisions:
        assert rev.path is not None and rev.path.rsplit("/", 1)[-1].startswith(f"{rev.revision}_")
    numbers = sorted(int(r.revision) for r in revisions)
    assert numbers == list(range(1, len(numbers) + 1))
