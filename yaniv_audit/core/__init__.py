"""The pure core: cards, rules as values, melds, scoring, events, the engine, the
audit, fingerprints and messages. No marshmallow, DuckDB or Flask here; the
reading of files lives in the modules that call it (docs/design.md)."""
