class Ext:
    """Extension c."""
