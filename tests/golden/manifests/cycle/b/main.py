class Ext:
    """Extension b."""
