"""The deployment files in deploy/ (docs/deploy.md) are checked with the tools that read them,
where this machine has them: promtool for Prometheus' configuration and rules, systemd-analyze
for the unit, the server's own settings for the environment file. No container runtime runs
here, so the Dockerfile and the compose file are checked for what they name."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from slotlab.server.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool: apt-get install "
                    "prometheus")
@pytest.mark.parametrize("config", ["prometheus.yml", "prometheus-compose.yml"])
def test_prometheus_configuration_and_rules_are_valid(config: str) -> None:
    done = subprocess.run(["promtool", "check", "config", config], cwd=DEPLOY,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 rules found" in done.stdout


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd here")
def test_the_systemd_unit_verifies(tmp_path: Path) -> None:
    """The unit as shipped, its program pointed at this installation (the shipped path is a
    server's /opt/slotlab/venv) and run as root (there is no slotlab user here)."""
    unit = (DEPLOY / "systemd" / "slotlab.service").read_text()
    assert "/opt/slotlab/venv/bin/slotlab serve" in unit
    unit = unit.replace("/opt/slotlab/venv", str(Path(sys.executable).parent.parent))
    unit = re.sub(r"^(User|Group)=slotlab$", r"\1=root", unit, flags=re.M)
    (tmp_path / "slotlab.service").write_text(unit)
    done = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "slotlab.service")],
                          capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr


def test_the_environment_file_is_valid_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [k for k in __import__("os").environ if k.startswith("SLOTLAB_")]:
        monkeypatch.delenv(name)
    path = DEPLOY / "systemd" / "slotlab.env"
    st = Settings(_env_file=path)  # type: ignore[call-arg]
    assert st.db_pooler == "pgbouncer" and st.log_format == "json"
    assert st.database_url.endswith("@127.0.0.1:6432/slotlab")
    listed = {ln.split("=", 1)[0] for ln in path.read_text().splitlines()
              if ln and not ln.startswith("#")}
    assert "PROMETHEUS_MULTIPROC_DIR" in listed
    assert {"SLOTLAB_HOST", "SLOTLAB_PORT", "SLOTLAB_WORKERS"} <= listed  # the unit's command


def test_the_compose_file_names_what_exists() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert set(compose["services"]) == {"postgres", "pgbouncer", "slotlab", "prometheus"}
    build = compose["services"]["slotlab"]["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).is_file()
    for volume in compose["services"]["prometheus"]["volumes"]:
        source = volume.split(":")[0]
        if source.startswith("./"):
            assert (DEPLOY / source).is_file(), source
    env = compose["services"]["slotlab"]["environment"]
    assert "@pgbouncer:" in env["SLOTLAB_DATABASE_URL"] and env["SLOTLAB_DB_POOLER"] == "pgbouncer"
    scrape = yaml.safe_load((DEPLOY / "prometheus-compose.yml").read_text())
    assert scrape["scrape_configs"][0]["static_configs"][0]["targets"] == ["slotlab:8000"]


def test_the_dockerfile_copies_what_exists() -> None:
    for line in (DEPLOY / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), source
