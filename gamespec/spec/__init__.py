"""The front end: spec bytes → checked Spec and its phase graph (load → validate → parse → check → graph).

One stage per module (docs/pipeline.md): `yamlsafe` (bytes → marked data), `schema` (the JSON Schema),
`parser` (rule strings → `ast`), `structure` and `types` (the checker: names and declarations, then
types), `model` (the checked Spec), `options`, `sizes`, `graph`; the tables every stage reads:
`builtins`, `visibility`. It imports nothing from the compile stage, the interpreter or the apps.
"""
