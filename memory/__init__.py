"""Veil memory package."""
