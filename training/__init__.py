"""Veil training package."""
