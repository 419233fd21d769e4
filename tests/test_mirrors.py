"""The engines are kept in step by tables, not by hand (docs/native.md, "One table of mirrors"): each
fault and bail code, each limit, each flow instruction kind and each built-in is declared once, and a
test here fails when one exists in one engine and not the other, or when a copy (runtime.h's enum and
#defines) differs from its table."""
from __future__ import annotations

import ast
import glob
import os
import re

from helpers import ROOT

from gamespec import mirrors as M

NATIVE = os.path.join(ROOT, "interpreter", "native")
C_RUNTIME = [os.path.join(NATIVE, f) for f in ("runtime.h", "runtime.c", "step.c")]


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _header():
    return _read(os.path.join(NATIVE, "runtime.h"))


def _py_files(*folders):
    for folder in folders:
        yield from glob.glob(os.path.join(ROOT, folder, "**", "*.py"), recursive=True)


def _c_side():
    """Every text that makes C: the run-time sources and the generator's Python."""
    return "\n".join(_read(p) for p in C_RUNTIME + list(_py_files(os.path.join("gamespec", "compile", "native"))))


# -- faults ------------------------------------------------------------------------------------------
def test_the_headers_stop_codes_are_the_table():
    """runtime.h's enum of faults and bails, and its statuses, are gamespec/mirrors.py's rows."""
    h = _header()
    enum = {m[0]: int(m[1]) for m in re.findall(r"\b([FB]_[A-Z0-9_]+) = (\d+)", h)}
    assert enum == M.STOP_CODES, ("runtime.h's codes and gamespec/mirrors.py's FAULTS/BAILS differ (a new code "
                                  "is a row there, with the check the Python engine raises): "
                                  f"{sorted(set(enum.items()) ^ set(M.STOP_CODES.items()))}")
    status = {m[0]: int(m[1]) for m in re.findall(r"\b(ST_[A-Z]+) = (\d+)", h)}
    assert status == M.STATUS
    codes = [s.code for s in M.FAULTS + M.BAILS]
    assert len(set(codes)) == len(codes) and all(s.code < 64 for s in M.FAULTS) and all(s.code >= 64 for s in M.BAILS)


def test_every_stop_code_is_used_by_c():
    """A code in the table that no C stops with is a mirror of nothing."""
    text = _c_side()
    unused = [s.name for s in M.FAULTS + M.BAILS if len(re.findall(rf"\b{s.name}\b", text)) < 2]
    assert not unused, f"codes declared but never stopped with: {unused}"


def _python_checks():
    """(check, file:line) of every SpecRuntimeError check the Python engine raises by name."""
    out = []
    for path in _py_files("interpreter", os.path.join("gamespec", "compile")):
        if os.sep + "native" + os.sep in path or path.endswith(("native_engine.py", "native_step.py")):
            continue
        for node in ast.walk(ast.parse(_read(path))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            got = [k.value for k in node.keywords if k.arg == "check"]
            if name in ("fault", "_fault") and len(node.args) >= 2:
                got.append(node.args[1])
            for g in got:
                if isinstance(g, ast.Constant) and isinstance(g.value, str):
                    out.append((g.value, f"{os.path.relpath(path, ROOT)}:{node.lineno}"))
    return out


def test_every_fault_is_a_check_the_python_engine_raises_and_back():
    """Each C fault names the check the Python engine raises there; each check the Python engine raises
    is mirrored by a C fault or listed, with its reason, as Python's alone."""
    raised = _python_checks()
    names = {c for c, _ in raised} | {"runtime"}        # fault()'s default
    assert len(raised) > 20
    missing = [s.name for s in M.FAULTS if s.check not in names]
    assert not missing, f"faults whose check the Python engine never raises: {missing}"
    mirrored = {s.check for s in M.FAULTS} | set(M.PYTHON_ONLY_CHECKS)
    orphans = sorted({f"{c} ({where})" for c, where in raised if c not in mirrored})
    assert not orphans, f"checks the Python engine raises that no C fault mirrors: {orphans}"


def test_the_native_engine_reads_the_table():
    from gamespec.interpreter import native_engine as ne
    assert ne.WHY is M.WHY
    assert (ne.ST_OK, ne.ST_FAULT, ne.ST_BAIL, ne.ST_TIMEOUT) == tuple(M.STATUS[k] for k in
                                                                        ("ST_OK", "ST_FAULT", "ST_BAIL", "ST_TIMEOUT"))


# -- limits ------------------------------------------------------------------------------------------
def _c_number(text):
    """A #define's value: a number, or casts and shifts of numbers ((size_t)256 << 20)."""
    text = re.sub(r"\(\s*(size_t|int64_t|int32_t|uint64_t)\s*\)", "", text.split("/*")[0]).strip()
    assert re.fullmatch(r"[\d\s()<>*+x]+", text), text
    return eval(text.replace("<<", " << "), {})      # digits and operators only (checked above)


def test_the_headers_limits_are_the_table():
    """Each limit C holds in runtime.h is #defined there with the table's value; a limit the table says
    C holds is there, and no C run-time source #defines one elsewhere."""
    defines = {m[0]: _c_number(m[1]) for m in re.findall(r"^#define (MAX_\w+|ARENA_CAP) (.+)$", _header(), re.M)}
    want = {x.name: x.value for x in M.LIMITS if x.c == "header"}
    assert defines == want, ("runtime.h's limits and gamespec/mirrors.py's LIMITS differ: "
                             f"{sorted(set(defines.items()) ^ set(want.items()))}")
    for path in glob.glob(os.path.join(NATIVE, "*.c")):
        again = re.findall(r"^#define (\w+)", _read(path), re.M)
        assert not set(again) & set(M.LIMIT), f"{path} #defines {sorted(set(again) & set(M.LIMIT))}: runtime.h holds them"


def test_no_python_module_keeps_its_own_copy_of_a_limit():
    """The engine's Python stages import each limit from gamespec/mirrors.py: none assigns one of its names."""
    copies = []
    for path in _py_files(os.path.join("gamespec", "spec"), os.path.join("gamespec", "compile"), "interpreter"):
        if path.endswith(os.path.join("gamespec", "mirrors.py")):
            continue
        for node in ast.walk(ast.parse(_read(path))):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(t, ast.Name) and (t.id in M.LIMIT or t.id == "INT_LIMIT"):
                        copies.append(f"{os.path.relpath(path, ROOT)}:{node.lineno}: {t.id}")
    assert not copies, f"limits assigned outside gamespec/mirrors.py: {copies}"


def test_each_limit_is_read_where_its_row_says():
    """A limit the generator emits is read by the C generator; a header limit is used by C's sources;
    every limit is read by some Python stage or C (a row of nothing fails)."""
    c_text = "\n".join(_read(p) for p in glob.glob(os.path.join(NATIVE, "*.c")))
    gen_text = "\n".join(_read(p) for p in _py_files(os.path.join("gamespec", "compile", "native")))
    py_text = "\n".join(_read(p) for p in _py_files("gamespec", "interpreter") if not p.endswith("mirrors.py"))
    for x in M.LIMITS:
        assert x.c in ("header", "emitted", "python"), x
        if x.c == "header":
            assert re.search(rf"\b{x.name}\b", c_text + gen_text), f"{x.name}: #defined in runtime.h, used by no C"
        if x.c == "emitted":
            assert re.search(rf"\b{x.name}\b", gen_text), f"{x.name}: the C generator does not read it"
        assert re.search(rf"\b{x.name}\b", py_text + c_text), f"{x.name}: nothing reads it"


# -- flow instructions -------------------------------------------------------------------------------
def _spec_paths():
    return sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")) + glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))


def _rulesets():
    from helpers import load
    for path in _spec_paths():
        g = load(path)
        opts = g.option_sets()
        yield path, g.ruleset(g.min_players, opts[-1] if opts else {})


def test_every_flow_kind_is_declared_made_and_compiled_by_both_engines():
    """The flow program is flow.KINDS' instructions only (dataclasses holding their rules); every kind
    is made by some spec and run by the Python engine (flow._make refuses an unknown kind); the C
    generator compiles every kind not declared NATIVE_NOT_YET, and none that is (then its reason is
    stale: clear it)."""
    from gamespec.compile.flow import KINDS, Ins
    from gamespec.compile.native.errors import NativeUnsupported
    from gamespec.compile.native.program import generate
    seen, compiled, refused = set(), set(), {}
    for path, rs in _rulesets():
        assert all(isinstance(ins, Ins) and KINDS[ins.KIND] is type(ins) for ins in rs.flow_code)
        for ins in rs.flow_code:        # every compiled field has its rule beside it
            for name, rule in ins.rules.items():
                assert rule is not None and getattr(ins, name) is not None, (ins.KIND, name)
        kinds = {ins.KIND for ins in rs.flow_code}
        seen |= kinds
        try:
            generate(rs)
            compiled |= kinds
        except NativeUnsupported as e:
            m = re.fullmatch(r"flow instruction (\w+)", str(e))
            if m:
                refused[m[1]] = os.path.basename(path)
    assert seen == set(KINDS), f"kinds no spec makes: {sorted(set(KINDS) - seen)}"
    not_yet = {k for k, c in KINDS.items() if c.NATIVE_NOT_YET}
    assert not compiled & not_yet, f"C compiles {sorted(compiled & not_yet)}: clear their NATIVE_NOT_YET"
    assert set(KINDS) - not_yet <= compiled, f"kinds C never compiled: {sorted(set(KINDS) - not_yet - compiled)}"
    assert set(refused) <= not_yet, f"C refuses kinds it should compile: {refused}"


# -- built-ins ---------------------------------------------------------------------------------------
def test_every_builtin_has_a_python_and_a_c_side():
    """Each built-in of gamespec/spec/builtins.py's table has an entry in each engine's registry (the
    closures', the generated code's and the C generator's CALLS: name -> its compiler or emitter), and
    no registry holds a name the table lacks. The registries are the dispatch: each engine's `call`
    looks the name up there, and nowhere else."""
    from gamespec.compile import closures, codegen
    from gamespec.compile.native import cgen
    from gamespec.spec.builtins import TABLE, WALKS_LIST
    names = {b.name for b in TABLE}
    for engine, calls in (("closures", closures.CALLS), ("codegen", codegen.CALLS), ("C", cgen.CALLS)):
        assert set(calls) == names, (f"{engine}: built-ins without an entry {sorted(names - set(calls))}, "
                                     f"entries that are no built-in {sorted(set(calls) - names)}")
        assert all(callable(f) for f in calls.values()), engine
    assert cgen.WALKS_LIST is WALKS_LIST, "the C generator keeps its own copy of WALKS_LIST"


def test_every_aggregate_has_a_generator_form_in_each_engine():
    """Each built-in the table marks `aggregate` (it takes a `for` comprehension) has an entry in each
    engine's second registry, AGGREGATES (the closures', the generated code's, the C generator's), and
    no other built-in has one: `aggregate` dispatches the generator forms (and `key=`) through it."""
    from gamespec.compile import closures, codegen
    from gamespec.compile.native import cgen
    from gamespec.spec.builtins import AGGREGATES, TABLE
    marked = {b.name for b in TABLE if b.aggregate}
    assert marked == AGGREGATES and {"sum", "max", "sorted", "count"} <= marked
    for engine, aggs in (("closures", closures.AGGREGATES), ("codegen", codegen.AGGREGATES),
                         ("C", cgen.AGGREGATES)):
        assert set(aggs) == marked, (f"{engine}: aggregates without a generator form {sorted(marked - set(aggs))}, "
                                     f"generator forms of no aggregate {sorted(set(aggs) - marked)}")
        assert all(callable(f) for f in aggs.values()), engine


def test_a_registry_that_differs_from_the_table_is_refused():
    """spec/builtins.py's registry and check, which each engine runs at import: a built-in left out, a
    name that is no built-in, a name registered twice are errors naming it."""
    import pytest

    from gamespec.spec.builtins import TABLE, check, registry
    calls, emits = registry("test")
    emits(*[b.name for b in TABLE if b.name != "runs"])(lambda *a: None)
    with pytest.raises(AssertionError, match="'runs'"):
        check("test", calls)
    emits("runs")(lambda *a: None)
    assert check("test", calls) is calls
    with pytest.raises(AssertionError, match="'runs' registered twice"):
        emits("runs")(lambda *a: None)
    with pytest.raises(AssertionError, match="'len' is registered but is no built-in"):
        emits("len")(lambda *a: None)
    calls["len"] = None
    with pytest.raises(AssertionError, match="entries that are no built-in: \\['len'\\]"):
        check("test", calls)


def test_an_aggregate_registry_that_differs_from_the_table_is_refused():
    """The generator forms' registry (`registry(..., aggregate=True)`) is checked against the built-ins
    the table marks `aggregate`: one left out, a built-in that takes no comprehension, a name that is
    no built-in, a name registered twice are errors naming it."""
    import pytest

    from gamespec.spec.builtins import AGGREGATES, check, registry
    aggs, aggregates = registry("test", aggregate=True)
    aggregates(*sorted(AGGREGATES - {"last"}))(lambda *a: None)
    with pytest.raises(AssertionError, match="aggregate built-ins without an entry: \\['last'\\]"):
        check("test", aggs, aggregate=True)
    with pytest.raises(AssertionError, match="'last'"):
        check("test", aggs, aggregate=True)
    aggregates("last")(lambda *a: None)
    assert check("test", aggs, aggregate=True) is aggs
    with pytest.raises(AssertionError, match="aggregate built-in 'sum' registered twice"):
        aggregates("sum")(lambda *a: None)
    with pytest.raises(AssertionError, match="'size' is registered but is no aggregate built-in"):
        aggregates("size")(lambda *a: None)
    with pytest.raises(AssertionError, match="'len' is registered but is no aggregate built-in"):
        aggregates("len")(lambda *a: None)
    aggs["runs"] = None         # a built-in, but not one that takes a comprehension
    with pytest.raises(AssertionError, match="entries that are no aggregate built-in: \\['runs'\\]"):
        check("test", aggs, aggregate=True)
    # the full registry is not the aggregates' one: an aggregate registry is refused as CALLS
    with pytest.raises(AssertionError, match="built-ins without an entry: \\['size'"):
        check("test", {k: v for k, v in aggs.items() if k != "runs"})
