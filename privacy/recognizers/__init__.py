"""Veil's own Presidio recognizers; each is enabled by name in privacy/conf/recognizers.yaml."""
