"""Balance studies: per-game records, statistics with uncertainty, HTML reports, sweeps, comparisons,
and the Ray backend. The face of the package (submodules load on first use, so importing it is cheap;
matplotlib, Ray and tqdm are imported only by what needs them):

    from gamespec import analysis
    with analysis.RecordWriter("study.jsonl") as rec:
        out = analysis.run_study("games/mygame.yaml", games=1000, players=4, records=rec)
    out["summary"]                                  # win rates with Wilson intervals, ...
    rows = analysis.read_records("study.jsonl")
    analysis.summarize(rows)                        # one summary per configuration
    analysis.compare(rows_a, rows_b)                # which figures differ beyond noise
    analysis.study_findings(analysis.summarize(rows))   # the study in words, figures with 95% intervals
    analysis.write_report(rows, "report.html")      # self-contained HTML: words first, then plots
    analysis.simulate(game, path, games=100, sweep=["players=3,4"])   # `gamespec simulate`'s request
    analysis.study_lines(out)                       # a result as text (comparison_lines, failure_lines)
    analysis.study_verdict(summaries)               # "verdict: fair ...; decided ...; skill ..." (one line)
"""
from __future__ import annotations

_FACE = {
    "run_study": "study", "run_sweep": "study", "simulate": "study", "BACKENDS": "study",
    "Interrupted": "study",
    "RecordWriter": "records", "read_records": "records", "iter_records": "records",
    "RecordFiles": "records", "make_record": "records", "RecordsError": "records",
    "summarize": "stats", "wilson": "stats", "chi_square_equal": "stats", "describe": "stats",
    "parse_sweep": "sweep", "grid": "sweep",
    "compare": "comparison",
    # the module findings.py's findings() is study_findings here: the package's attribute `findings`
    # is the submodule once imported, so a face name `findings` would be the one or the other
    "study_findings": "findings", "finding_items": "findings", "config_findings": "findings",
    "study_verdict": "findings", "restriction_ranking": "findings",
    "write_report": "report", "build_report": "report", "report_files": "report", "ReportError": "report",
    "study_lines": "text", "failure_lines": "text", "comparison_lines": "text",
    "verdict_lines": "text", "ranking_lines": "text",
    "ProgressBar": "progress",
}
_RENAMED = {"build_report": "build", "study_findings": "findings", "study_verdict": "verdict"}     # face name -> the module's name
__all__ = sorted(_FACE)


def __getattr__(name):
    mod = _FACE.get(name)
    if mod is None:
        raise AttributeError(f"module 'gamespec.analysis' has no attribute {name!r}")
    import importlib
    m = importlib.import_module(f".{mod}", __name__)
    value = getattr(m, _RENAMED.get(name, name))
    globals()[name] = value
    return value
