class BuilderAgentExtension:
    """Creates extensions."""
