"""`hwlint fix`: plans from typed fixes, trials, libcst rewrites, verified writes."""
