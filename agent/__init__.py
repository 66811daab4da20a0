"""Veil agent package."""
