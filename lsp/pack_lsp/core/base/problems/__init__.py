"""Rules raised below the model: declarations only, no checks.

The YAML composer, the schema check, the suppression comments and the recognition of
PromptKit documents report these; the checks layer lists them with every other rule.
"""
