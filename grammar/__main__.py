"""`python -m gamespec.grammar`: rebuild rules_tables.json after editing rules.lark."""
from pathlib import Path

from gamespec.spec.parser import TABLES_FILE, build_tables

out = Path(__file__).resolve().parent / TABLES_FILE
out.write_text(build_tables(), encoding="utf-8")
print(f"wrote {out}")
