"""Checks of agent-extension manifests, one manifest with its workspace."""
