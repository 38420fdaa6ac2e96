"""Editor features of arena projects: navigation across the project's files and the call
hierarchy of the compiled pack taken back to them."""
