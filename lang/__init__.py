"""The neutral layer: the message model, placeholders and per-language vocabulary as data.

Every other Veil package may import this one; it imports none of them (DESIGN.md, "Layers").
"""
