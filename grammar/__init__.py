"""Package data: the Lark grammar of the rule language (installed as gamespec.grammar)."""
