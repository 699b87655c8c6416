"""The check pipeline wired: discover → read → facts → resolve → rules → allowlist, with the cache around it."""
