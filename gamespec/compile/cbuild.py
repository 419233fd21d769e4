"""Generated C source → a shared library in the cache: the system C compiler, a SHA-256 key, an
atomic rename, and a key check before anything cached is loaded (docs/native.md, "Build and cache").
A cache another user could write to is never used: a library runs its code when it is loaded."""
from __future__ import annotations

import atexit
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading

FLAGS = ("-O2", "-fPIC", "-fno-strict-aliasing", "-fvisibility=hidden", "-std=gnu11")    # the run time's
# the generated rules': -O3 unrolls and unswitches their short fixed loops (a parameter over a zone
# family's keys, a count over its zones): 4-7% fewer instructions per decision in the seed games' playouts
# (bench/callgrind.py), for about a fifth more compile time; the source is bounded before (MAX_SOURCE_BYTES)
GAME_FLAGS = ("-O3",) + FLAGS[1:]
RUNTIME_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "interpreter", "native")
BUILD_TIMEOUT = 600      # seconds: a compiler that hangs is a failed build
_lock = threading.Lock()
_compilers = {}


class NativeUnavailable(Exception):
    """No library can be built or loaded here; str() says why in a few words."""


def runtime_dir():
    """Where runtime.h and runtime.c are (package data of `gamespec.interpreter`)."""
    try:
        import gamespec.interpreter as interpreter
        d = os.path.join(os.path.dirname(os.path.abspath(interpreter.__file__)), "native")
        if os.path.exists(os.path.join(d, "runtime.h")):
            return d
    except ImportError:       # pragma: no cover
        pass
    return RUNTIME_DIR


def cache_dir():
    d = os.environ.get("GAMESPEC_CACHE")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "gamespec")
    return d


def _cc_label():
    """The compiler as the user named it, for the fallback line."""
    cc = os.environ.get("CC")
    return f"(CC={cc})" if cc else "cc"


def _status(rc):
    return f"is killed by signal {-rc}" if rc < 0 else f"exits with status {rc}"


def compiler():
    """(argv prefix, identity): `$CC` (it may carry flags) or `cc`, and the first line of its
    `--version`. NativeUnavailable if there is none or it does not run."""
    cc = os.environ.get("CC") or "cc"
    with _lock:
        got = _compilers.get(cc)
    if got is not None:
        if isinstance(got, str):
            raise NativeUnavailable(got)
        return got
    try:
        argv = shlex.split(cc)
    except ValueError:
        argv = []
    if not argv:
        why = f"no C compiler: CC={cc!r} is not a command"
    else:
        path = shutil.which(argv[0])
        if path is None:
            why = f"no C compiler found (CC={cc})" if os.environ.get("CC") else "no C compiler found (cc is not on PATH)"
        else:
            try:
                r = subprocess.run([path] + argv[1:] + ["--version"], capture_output=True, text=True, timeout=30)
                first = (r.stdout or r.stderr).strip().splitlines()
                if r.returncode != 0:
                    why = f"the C compiler {_cc_label()} fails: '{argv[0]} --version' {_status(r.returncode)}"
                elif not first:
                    why = f"the C compiler {_cc_label()} says no version: '{argv[0]} --version' prints nothing"
                else:
                    got = ([path] + argv[1:], first[0][:200])
                    with _lock:
                        _compilers[cc] = got
                    return got
            except subprocess.TimeoutExpired:
                why = f"the C compiler {_cc_label()} does not answer '{argv[0]} --version' within 30 s"
            except (OSError, subprocess.SubprocessError) as e:
                why = f"the C compiler {_cc_label()} cannot be run ({getattr(e, 'strerror', None) or type(e).__name__})"
    with _lock:
        _compilers[cc] = why
    raise NativeUnavailable(why)


def runtime_sources():
    d = runtime_dir()
    out = []
    for name in ("runtime.h", "runtime.c", "agent.h", "step.c", "combi.c", "plan.c"):   # (step.c, combi.c: included by runtime.c)
        with open(os.path.join(d, name), "rb") as f:
            out.append(f.read())
    return out


def cache_key(source: str, argv, identity) -> str:
    h = hashlib.sha256()
    for part in [source.encode()] + runtime_sources() + [" ".join(argv).encode(), identity.encode(),
                                                         " ".join(FLAGS).encode(), " ".join(GAME_FLAGS).encode()]:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def build(source: str):
    """The library for `source`: (path, key, seconds spent compiling, cached?). Builds it if the
    cache holds no verified copy. NativeUnavailable when it cannot."""
    import time
    argv, identity = compiler()
    key = cache_key(source, argv, identity)
    d = _build_dir()
    stem = f"gs-{key[:40]}"
    so = os.path.join(d, stem + ".so")
    keyfile = os.path.join(d, stem + ".key")
    if _cached_ok(so, keyfile, key):
        return so, key, 0.0, True
    t0 = time.perf_counter()
    rt_obj = _runtime_object(argv, identity, d)
    with tempfile.TemporaryDirectory(prefix="gamespec-build-") as tmp:
        src = os.path.join(tmp, "game.c")
        with open(src, "w") as f:
            f.write(source)
        obj = os.path.join(tmp, "game.o")
        _cc(list(argv) + list(FLAGS) + ["-O3", f'-DGS_KEY="{key}"', "-I", runtime_dir(), "-c", src, "-o", obj], tmp,
            obj, "object file")
        out = os.path.join(tmp, "game.so")
        _cc(list(argv) + ["-shared", obj, rt_obj, "-o", out, "-lm"], tmp, out, "library")
        _install(out, so, stem, d)
        fd, part = tempfile.mkstemp(prefix=stem + ".", suffix=".kpart", dir=d)
        with os.fdopen(fd, "w") as f:
            f.write(key)
        os.replace(part, keyfile)
    return so, key, time.perf_counter() - t0, False


def _cc(cmd, tmp, out, what):
    """Run the compiler to make `out` (a `what`); NativeUnavailable, saying why, if it does not."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise NativeUnavailable(f"the C compiler took more than {BUILD_TIMEOUT} s") from None
    except OSError as e:
        raise NativeUnavailable(f"the C compiler {_cc_label()} cannot be run ({e.strerror})") from None
    if r.returncode != 0:
        err = (r.stderr or "").replace(tmp + os.sep, "")
        first = next((ln for ln in err.splitlines() if "error" in ln), err.strip()[:200])
        raise NativeUnavailable(f"the C build failed: {first[:300]}" if first else
                                f"the C build failed: the C compiler {_cc_label()} {_status(r.returncode)}")
    # a "compiler" that succeeds and makes nothing (CC=true) is no compiler: say so, not that the
    # cache is at fault when the missing file cannot be copied into it
    if not (os.path.isfile(out) and os.path.getsize(out) > 0):
        raise NativeUnavailable(f"the C compiler {_cc_label()} succeeded but produced no {what}")


def _install(built, dest, stem, d):
    """`built` into the cache as `dest`, atomically: a temporary name in the same directory, then
    rename (concurrent builders race harmlessly: each renames a complete file)."""
    fd, part = tempfile.mkstemp(prefix=stem + ".", suffix=".part", dir=d)
    try:
        with os.fdopen(fd, "wb") as f, open(built, "rb") as g:
            shutil.copyfileobj(g, f)
        os.chmod(part, 0o755)
        os.replace(part, dest)
    except OSError as e:
        _unlink(part)
        raise NativeUnavailable(f"the cache directory {d} is not writable ({e.strerror})") from None


def _runtime_object(argv, identity, d):
    """runtime.c compiled once per compiler and runtime version (most of a build's time): its
    object file in the cache, keyed like a library and checked the same way."""
    h = hashlib.sha256()
    for part in runtime_sources() + [" ".join(argv).encode(), identity.encode(), " ".join(FLAGS).encode()]:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    key = h.hexdigest()
    stem = f"rt-{key[:40]}"
    obj = os.path.join(d, stem + ".o")
    keyfile = os.path.join(d, stem + ".key")
    if _cached_ok(obj, keyfile, key):
        return obj
    with tempfile.TemporaryDirectory(prefix="gamespec-build-") as tmp:
        out = os.path.join(tmp, "runtime.o")
        _cc(list(argv) + list(FLAGS) + ["-I", runtime_dir(), "-c", os.path.join(runtime_dir(), "runtime.c"),
                                        "-o", out], tmp, out, "object file")
        _install(out, obj, stem, d)
        fd, part = tempfile.mkstemp(prefix=stem + ".", suffix=".kpart", dir=d)
        with os.fdopen(fd, "w") as f:
            f.write(key)
        os.replace(part, keyfile)
    return obj


def _cached_ok(so, keyfile, key):
    try:
        with open(keyfile) as f:
            if f.read(200) != key or os.path.getsize(so) <= 0:
                return False
        for path in (keyfile, so):
            why = _distrust(os.stat(path))
            if why:     # (built again: the new file replaces it, ours)
                _say(f"gamespec: the cached file {path} {why}: not loaded, built again")
                return False
        return True
    except OSError:
        return False


# -- whose cache --------------------------------------------------------------------------------
# Loading a library runs its code (constructors) before any key can be asked of it, so the key file
# proves nothing where someone else can write: the cache directory and every file loaded from it
# must be the user's own and writable by no one else.
_said = set()
_private = []


def _distrust(st):
    """Why a cache entry with stat `st` must not be trusted, or None."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:      # pragma: no cover - no POSIX owners here
        return None
    if st.st_uid != getuid():
        return f"is owned by {_user(st.st_uid)}, not by you"
    if st.st_mode & 0o022:
        who = "others" if st.st_mode & 0o002 else "its group"
        return f"is writable by {who} (mode {st.st_mode & 0o777:o})"
    return None


def _user(uid):
    try:
        import pwd
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def _build_dir():
    """The cache directory (made 0700), or this process's private temporary directory when the cache
    is not the user's alone (said in one line)."""
    d = cache_dir()
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
        why = _distrust(os.stat(d))
    except OSError as e:
        raise NativeUnavailable(f"the cache directory {d} cannot be made ({e.strerror})") from None
    if why is None:
        return d
    _say(f"gamespec: the native build cache {d} {why}: not used (a library there could be anyone's); "
         "building in a private temporary directory")
    with _lock:
        if not _private:
            tmp = tempfile.mkdtemp(prefix="gamespec-native-")      # mode 0700
            atexit.register(shutil.rmtree, tmp, True)
            _private.append(tmp)
        return _private[0]


def _say(line):
    """A line on stderr, once per process."""
    with _lock:
        if line in _said:
            return
        _said.add(line)
    print(line, file=sys.stderr, flush=True)


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def forget(so):
    """A cached library that failed its check: removed, so the next load builds it again."""
    _unlink(so)
    _unlink(so[:-3] + ".key")


# -- a rule set's library ------------------------------------------------------------------------
def library(rs):
    """The loaded native library of rule set `rs` (gamespec.interpreter.native_engine.NativeLib), or the
    reason (a str) why there is none. Generated, built (or found in the cache) and loaded once."""
    got = rs.__dict__.get("_native")
    if got is not None:
        return got
    with _lock_rs:
        got = rs.__dict__.get("_native")
        if got is None:
            got = rs._native = _make(rs)
    return got


_lock_rs = threading.Lock()
_told = set()


def tell(game, rs, reason, bail=False):
    """The one line on stderr (once per game and configuration) saying why the Python engine plays;
    `bail`: the library is used, but it stopped a game (said once too: the Python engine plays such
    games again)."""
    key = (id(game), rs.P, tuple(sorted(rs.options.items())), bail)
    with _lock_rs:
        if key in _told:
            return
        _told.add(key)
    # true/false as the command line writes them (not Python's True/False)
    opts = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in sorted(rs.options.items()))
    config = f"{rs.spec.name} ({rs.P} players{'; ' + opts if opts else ''})"
    if bail:
        print(f"gamespec: the native engine stopped a game of {config} ({reason}); such games are played "
              "again on the Python engine", file=sys.stderr, flush=True)
        return
    print(f"gamespec: native engine not used for {config}: {reason}; playing on the Python engine",
          file=sys.stderr, flush=True)


def _make(rs):
    import time

    from gamespec.interpreter.native_engine import NativeLib
    from .native import NativeUnsupported, generate
    from .native.errors import SourceTooLarge
    t0 = time.perf_counter()
    try:
        source, meta = generate(rs)
    except SourceTooLarge as e:         # (before any compiler runs: its time grows with the source)
        return str(e)
    except NativeUnsupported as e:
        return f"the spec uses something the native compiler does not handle yet ({e})"
    except RecursionError:
        return "the spec's rules are nested too deeply for the native compiler"
    except Exception as e:      # a bug of the generator: never a crash, and never a library
        return f"the native compiler failed on this spec ({_exception(e)}); please report it"
    gen_s = time.perf_counter() - t0
    for attempt in (0, 1):
        try:
            path, key, secs, cached = build(source)
        except NativeUnavailable as e:
            return str(e)
        except Exception as e:  # (an OSError of the temporary directory, ...): the build failed
            return f"the native build failed ({_exception(e)})"
        # a retry loads the rebuilt file under a name of its own: the loader would hand back the
        # library it already mapped under the cache's name
        try:
            load_as = path if not attempt else _private_link(path)
        except OSError as e:
            return f"the native library cannot be loaded ({e})"
        try:
            lib = NativeLib(load_as, key, meta, rs, secs, cached)
            lib.path = path
            lib.generate_seconds = gen_s
            lib.load_seconds = time.perf_counter() - t0
            return lib
        except (OSError, AttributeError) as e:      # (ctypes: AttributeError for a missing entry point)
            forget(path)     # a foreign or broken file in the cache: never trusted, built again
            if attempt:
                return f"the native library cannot be loaded ({e})"
        finally:
            if load_as != path:
                _unlink(load_as)
    return "the native library cannot be loaded"


def _exception(e):
    """An unexpected exception in a few words: its kind and its first line."""
    first = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


def _private_link(path):
    import uuid
    link = f"{path[:-3]}.{os.getpid()}.{uuid.uuid4().hex[:8]}.so"
    try:
        os.link(path, link)
    except OSError:
        shutil.copyfile(path, link)
    return link


if __name__ == "__main__":     # pragma: no cover - a manual check of the toolchain
    print(compiler(), cache_dir(), file=sys.stderr)
