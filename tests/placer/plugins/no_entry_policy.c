/* Test plugin: an ordinary shared library without sy_policy_entry, as when
 * --policy names the wrong .so. */
__attribute__((visibility("default"))) int sy_not_a_policy(void) { return 0; }
