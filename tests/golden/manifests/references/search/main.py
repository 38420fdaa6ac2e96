class Search:
    """Search tools."""
