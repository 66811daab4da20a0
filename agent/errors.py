"""Errors raised by the agent package (model backends, the gateway, the turn loop)."""


class AgentError(Exception):
    """Base class for every error of the agent package."""


class ModelError(AgentError):
    """A model could not be loaded or reached; the message says which setting to fix."""


class ModelUnavailableError(ModelError):
    """No model is configured (--no-llm): callers take their rule-based path."""


class InputError(AgentError):
    """The user's input to a turn cannot be used (bad --now, unknown --tz, unreadable file)."""


class ModelOutputError(AgentError):
    """A model answered, but not in the form asked for (truncated JSON, wrong shape)."""
