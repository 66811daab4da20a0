"""What the messages mean: the act model, and (to come) time roles and the tracker.

Sits between tools/memory and agent in DESIGN.md's layers: it reads the neutral layer and
the tools' readings of time, and the agent reads it.
"""
