"""``python -m arenascope`` (and ``arenascope-py``): ``run`` a script under a session, ``bench``."""

import argparse
import os
import runpy
import sys
from typing import List, Optional

USAGE = """usage: python -m arenascope run [--out FILE.jsonl [--force] | --live HOST:PORT [--connect-timeout S] [--token T]]
                                  [--max-size BYTES] [--max-duration TIME]
                                  [--stacks N] [--adapters LIST] [--name NAME] script.py [args...]
       python -m arenascope bench [--iterations N] [--repeats R] [--json FILE]

run      runs script.py with its argv, recording the pools and arenas of the libraries it imports
         (adapters: pyopencl, pycuda, hysop, algan, torch; --adapters all (default), none, or a comma
         list) to FILE.jsonl (default: <script>.jsonl, or <script>-1.jsonl, -2, ... when taken; a FILE
         that exists is refused unless --force, which replaces it once the run is over) or
         live to `arenascope listen` on HOST:PORT, trying to connect and be answered for
         --connect-timeout S seconds (default 30; a dropped connection is tried again), presenting
         --token T when the receiver was started with one (listen --token).
         --name NAME names the session (default: the script's file name).
         --max-size BYTES (e.g. 2GiB, at least 1MiB) and --max-duration TIME (e.g. 8h, 90min, at least
         1s) keep the JSONL file to its newest part: the oldest segments are dropped whole and counted
         in the file (a ring; arenascope stats says what was dropped). A file only: with --live, cap on
         the receiver (arenascope listen --max-size).
         --stacks N captures N Python frames per allocation (default 0: off). The script's exit code is
         kept; when events were lost or not delivered, one line says so and the exit code is 3 (if the
         script itself exited 0).
bench    the client's cost per recorded event (pyopencl pool hit loop, arena adapter): --iterations N
         of each loop (default 100000), the median of --repeats R runs (default 5), --json FILE for the
         figures as JSON.
"""

#: Exit code when the script succeeded but events were lost or not delivered.
EXIT_LOST = 3


def run_parser() -> argparse.ArgumentParser:
    """The ``run`` command's options (each listed in :data:`USAGE`)."""
    p = argparse.ArgumentParser(prog="python -m arenascope run", add_help=True)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--out")
    g.add_argument("--live")
    p.add_argument("--stacks", type=int, default=0)
    p.add_argument("--adapters", default="all")
    p.add_argument("--name")
    p.add_argument("--token")
    p.add_argument("--force", action="store_true")
    p.add_argument("--connect-timeout", type=float, default=30.0)
    p.add_argument("--max-size")
    p.add_argument("--max-duration")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    return p


def _run(argv):
    p = run_parser()
    a = p.parse_args(argv)
    from . import _adapters, _session
    from ._session import Session
    from ._writer import LiveError
    if a.stacks < 0:
        p.error("--stacks must be 0 (off) or a number of frames, got %d" % a.stacks)
    try:
        names = _adapters.parse(a.adapters)
    except ValueError as e:
        p.error(str(e))
    if not os.path.isfile(a.script):
        print("arenascope run: no such script: %s" % a.script, file=sys.stderr)
        return 2
    if not a.connect_timeout > 0:
        p.error("--connect-timeout must be a positive number of seconds, got %s" % a.connect_timeout)
    if a.force and a.out is None:
        p.error("--force goes with --out FILE (it replaces FILE when it exists)")
    out = a.out
    mode = "atomic" if a.force else "new"   # a name given: never an earlier run's file unless --force
    if out is None and a.live is None:
        out = os.path.splitext(os.path.basename(a.script))[0] + ".jsonl"
        mode = "numbered"   # a name made up here: never another run's file (NAME-1.jsonl, ... when taken)
    try:
        s = Session(out=out, live=a.live, name=a.name or os.path.basename(a.script), stacks=a.stacks, token=a.token,
                    connect_timeout=a.connect_timeout, file_mode=mode if out is not None else None,
                    max_size=a.max_size, max_duration=a.max_duration)
    except FileExistsError:
        print("arenascope run: --out %s exists already; give --force to replace it" % out, file=sys.stderr)
        return 2
    except (LiveError, ValueError, OSError) as e:
        text = str(e).replace("max_size: ", "--max-size: ").replace("max_duration: ", "--max-duration: ")
        print("arenascope run: %s" % text, file=sys.stderr)
        return 2
    _session.start(s)
    _adapters.install(names)
    sys.argv = [a.script] + a.args
    sys.path.insert(0, os.path.dirname(os.path.abspath(a.script)))
    code = 0
    try:
        runpy.run_path(a.script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if e.code is not None and not isinstance(e.code, int):
            print(e.code, file=sys.stderr)
    except KeyboardInterrupt:
        import traceback
        traceback.print_exc()
        code = 130   # as Python itself exits on an uncaught Ctrl-C (128 + SIGINT)
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 1
    finally:
        _session.stop(s)
    print(s.summary(), file=sys.stderr)
    if code == 0 and not s.ok():
        return EXIT_LOST
    return code


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m arenascope ARGS``: the exit code of ``run`` or ``bench``, 2 on a usage error."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "run":
        return _run(rest)
    if cmd == "bench":
        from . import _bench as bench
        return bench.main(rest)
    print("arenascope: unknown command %r\n%s" % (cmd, USAGE), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
