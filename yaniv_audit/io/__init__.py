"""Reading and writing: the log files and their JSON (codec, log_schema, diagnose,
files, live), the JSON Schemas (json_schema, report_schema) and the rules files
(rules_files). Imports the core only (docs/design.md)."""
