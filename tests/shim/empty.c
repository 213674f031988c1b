/* An empty shared object: the cost floor of preloading any library, for benchmarks and tests. */
int numabind_empty_marker;
