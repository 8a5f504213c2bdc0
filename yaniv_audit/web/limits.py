"""The bounds of what a request may ask: bodies, events, pages (the API enforces them,
its OpenAPI document states them)."""

#: the default request body limit (YANIV_AUDIT_MAX_BYTES, serve --max-bytes)
DEFAULT_MAX_BYTES = 4 << 20
#: the default cap on the events of one posted log (YANIV_AUDIT_MAX_EVENTS)
DEFAULT_MAX_EVENTS = 20_000
#: games per page of the list: the default and the most
DEFAULT_LIMIT, MAX_LIMIT = 100, 1000
#: events per page of a game's events: the default and the most
DEFAULT_EVENTS_LIMIT, MAX_EVENTS_LIMIT = 1000, 20_000
#: the largest offset a page may start at (DuckDB takes a 64-bit one; keep it sane)
MAX_OFFSET = 1 << 40
#: the most rule sets one request may compare or report under (``rules=`` values)
MAX_RULE_SETS = 12
