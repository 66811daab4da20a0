"""Veil web package."""
