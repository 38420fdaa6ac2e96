class Tool:
    """A tool."""
