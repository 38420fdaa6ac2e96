class KvExtension:
    """Key-value tools."""
