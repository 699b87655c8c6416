"""Machinery around the stages: the process pool, the cache, hashing, atomic writes, git."""
