"""The records every stage speaks, and the configuration: the bottom layer."""
