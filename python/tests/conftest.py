"""Shared helpers: the repository's ``./arenascope`` launcher and running scripts under the client."""

import json
import os
import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]   # test_pytest_plugin.py runs the plugin in inner pytest runs

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(PYTHON_DIR)
LAUNCHER = os.path.join(REPO, "arenascope")
STANDINS = os.path.join(HERE, "standin_libs")
sys.path.insert(0, PYTHON_DIR)
sys.path.insert(0, HERE)


def env(extra_path=()):
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([PYTHON_DIR, HERE, STANDINS, *extra_path])
    return e


def run_client(args, cwd, check=True, timeout=120):
    """``python -m arenascope ARGS`` in ``cwd``; returns the CompletedProcess."""
    p = subprocess.run([sys.executable, "-m", "arenascope", *args], cwd=cwd, env=env(), capture_output=True,
                       text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError("arenascope %s exited %d:\n%s\n%s" % (args, p.returncode, p.stdout, p.stderr))
    return p


def java(args, cwd=None, check=True, timeout=300):
    """The Java CLI (``./arenascope ARGS``); returns the CompletedProcess."""
    p = subprocess.run([LAUNCHER, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError("./arenascope %s exited %d:\n%s\n%s" % (args, p.returncode, p.stdout, p.stderr))
    return p


def stats(path):
    """``./arenascope stats PATH`` as a dict (the command must succeed: the file reads cleanly)."""
    return json.loads(java(["stats", str(path)]).stdout)


def report(path):
    return json.loads(java(["report", str(path), "--format", "json"]).stdout)


def jsonl_lines(path):
    with open(path, encoding="ascii") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture
def tmp(tmp_path):
    return tmp_path
