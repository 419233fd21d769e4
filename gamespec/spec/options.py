"""A checked Spec's options + the values asked for → the complete option set (defaults overlaid,
each value checked), and the lists of option sets that validation and studies walk."""
from __future__ import annotations

import difflib
import itertools


def option_set(spec, options: dict | None) -> dict:
    """Defaults overlaid with the given options, each checked: returns the complete option dict."""
    out = dict(spec.options)
    for k, v in (options or {}).items():
        if k not in spec.options:
            close = difflib.get_close_matches(k, list(spec.options), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else (
                f"; options are {', '.join(spec.options)}" if spec.options else "; this game has no options")
            raise ValueError(f"unknown option '{k}'{hint}")
        d = spec.options[k]
        if isinstance(d, bool):
            if isinstance(v, str):
                if v.lower() in ("true", "1", "yes", "on"):
                    v = True
                elif v.lower() in ("false", "0", "no", "off"):
                    v = False
            if not isinstance(v, bool):
                raise ValueError(f"option '{k}' is true or false, not {v!r}")
        else:
            try:
                v = int(v)
            except (TypeError, ValueError):
                raise ValueError(f"option '{k}' is a whole number, not {v!r}") from None
            allowed = spec.option_values.get(k)
            if allowed and v not in allowed:
                raise ValueError(f"option '{k}' is one of {allowed}, not {v}")
            span = (getattr(spec, "option_ranges", None) or {}).get(k)
            if span and not span[0] <= v <= span[1]:
                raise ValueError(f"option '{k}' is a whole number from {span[0]} to {span[1]}, not {v}")
        out[k] = v
    return out


MAX_OPTION_SETS = 4096    # all_option_sets() refuses to list more (iter_option_sets() is lazy)


def _option_choices(spec):
    names = list(spec.options)
    choices = []
    for n in names:
        d = spec.options[n]
        if isinstance(d, bool):
            choices.append([False, True])
        else:
            choices.append(list(spec.option_values.get(n) or [d]))
    return names, choices


def count_option_sets(spec) -> int:
    """How many combinations all_option_sets() would list (computed, not listed)."""
    n = 1
    for c in _option_choices(spec)[1]:
        n *= len(c)
    return n


def iter_option_sets(spec):
    """Every combination of boolean options (ints take their listed values or their default), lazily."""
    names, choices = _option_choices(spec)
    for combo in itertools.product(*choices):
        yield dict(zip(names, combo))


def each_option_alone(spec):
    """The defaults, then each option set to each of its other values alone (lazily)."""
    names, choices = _option_choices(spec)
    default = dict(spec.options)
    yield dict(default)
    for n, values in zip(names, choices):
        for v in values:
            if v != default[n] or type(v) is not type(default[n]):
                yield dict(default, **{n: v})


def all_option_sets(spec):
    """Every combination, as a list; ValueError beyond MAX_OPTION_SETS (use iter_option_sets)."""
    n = count_option_sets(spec)
    if n > MAX_OPTION_SETS:
        raise ValueError(f"{spec.name} has {n} option combinations; at most {MAX_OPTION_SETS} are listed "
                         "(iterate over them lazily instead)")
    return list(iter_option_sets(spec))
