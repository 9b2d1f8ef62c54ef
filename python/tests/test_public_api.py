"""The client's public API reads like its documentation says: every name ``arenascope`` exports, and every public
method of ``Session``, carries a docstring and type hints that resolve; ``USAGE`` names every option of ``run`` and
``bench``. Nothing here runs a recording."""

import inspect
import typing

import arenascope
from arenascope import __main__ as cli
from arenascope import _bench


def _public_callables():
    for name in arenascope.__all__:
        obj = getattr(arenascope, name)
        if callable(obj):
            yield name, obj
    for name, member in vars(arenascope.Session).items():
        if not name.startswith("_") or name == "__init__":
            fn = member.fget if isinstance(member, property) else member
            if callable(fn):
                yield "Session." + name, fn
    for name in ("__init__", "__enter__", "__exit__", "__call__"):
        yield "scope." + name, getattr(arenascope.scope, name)


def test_every_public_function_has_a_docstring():
    missing = [n for n, f in _public_callables() if not inspect.getdoc(f) and not n.endswith("__init__")]
    assert missing == [], "no docstring: %s" % missing
    assert inspect.getdoc(arenascope.Session) and inspect.getdoc(arenascope.scope)


def test_every_public_function_has_type_hints_that_resolve():
    unhinted = []
    for name, fn in _public_callables():
        if inspect.isclass(fn):
            fn = fn.__init__
        fn = inspect.unwrap(fn)
        hints = typing.get_type_hints(fn)   # raises where a hint names nothing
        lacking = [p for p in inspect.signature(fn).parameters if p != "self" and p not in hints]
        if lacking or "return" not in hints:
            unhinted.append("%s (%s)" % (name, ", ".join(lacking + ([] if "return" in hints else ["return"]))))
    assert unhinted == [], "without type hints: %s" % unhinted


def test_the_package_says_it_is_typed():
    import os
    assert os.path.isfile(os.path.join(os.path.dirname(arenascope.__file__), "py.typed"))


def test_usage_lists_every_option_of_run_and_bench():
    for parser in (cli.run_parser(), _bench.parser()):
        for action in parser._actions:
            for opt in action.option_strings:
                if opt in ("-h", "--help"):
                    continue
                assert opt in cli.USAGE, "%s: %s is not in USAGE" % (parser.prog, opt)
