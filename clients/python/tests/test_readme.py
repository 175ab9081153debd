"""The Python examples of the READMEs run as they are against the real daemon playing the
demo, so the documentation cannot drift from the client."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Callable, List, Tuple

import pytest

from conftest import PATIENCE, REPO, Daemon, demo_arguments

StartDaemon = Callable[..., Daemon]
READMES = [REPO / "clients" / "python" / "README.md", REPO / "README.md"]


def examples() -> List[Tuple[str, str]]:
    """(which README, the code) of every Python block that uses the client."""
    return [
        (str(readme.relative_to(REPO)), block)
        for readme in READMES
        for block in re.findall(r"```python\n(.*?)```", readme.read_text(), flags=re.S)
        if "gestured_client" in block
    ]


def test_both_readmes_show_the_client() -> None:
    assert {readme for readme, _ in examples()} == {"clients/python/README.md", "README.md"}


@pytest.mark.parametrize(
    "readme, example", examples(), ids=[f"{readme}-{index}" for index, (readme, _) in enumerate(examples())]
)
def test_the_example_runs_against_the_demo(readme: str, example: str, start_daemon: StartDaemon) -> None:
    daemon = start_daemon(*demo_arguments())
    environment = {"GESTURED_SOCKET": daemon.socket, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(
        [sys.executable, "-c", example], env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        if "reconnect=True" in example:
            # It never ends by itself: after the demo's goodbye it reports the gap and
            # waits for the daemon to come back.
            output: List[str] = []
            for line in iter(process.stdout.readline, ""):
                output.append(line)
                if line.startswith("lost the daemon"):
                    break
            process.kill()
            assert output and output[-1].startswith("lost the daemon: goodbye: replay finished"), output
        else:
            stdout, stderr = process.communicate(timeout=PATIENCE)
            assert process.returncode == 0, stderr
            output = stdout.splitlines()
    assert output, "the example printed nothing"
