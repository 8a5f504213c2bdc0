"""WSGI entry point: ``gunicorn wsgi:app`` or ``flask --app wsgi run``."""

from __future__ import annotations

from yaniv_audit.web import create_app

app = create_app()
