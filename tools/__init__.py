"""Veil tools package."""
