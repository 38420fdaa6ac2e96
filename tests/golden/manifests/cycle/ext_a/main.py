class Ext:
    """Extension a."""
