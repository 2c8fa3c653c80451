"""Moderation (docs/moderation.md): reports, sanctions with their effects on games, aborting a deal, and
the audit log, through the API (apis.py) and the admin (admin.py), both calling services.py.

It lives in matchmaking because it acts on tables and, through games' services, on deals; the
sanctions and the audit log themselves are accounts' (accounts depends on no other app).
"""
