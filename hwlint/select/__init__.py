"""`hwlint select`: which tests a runner of given hardware runs, statically or at run time."""
