"""Agent-extension manifests: the model of one manifest and the workspace index."""
