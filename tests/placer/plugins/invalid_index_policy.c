/* Test plugin: always answers one past the last candidate. The host passes
 * that through unchanged so that the executor reports the policy's bug. */
#include <stddef.h>

#include "plugin_abi.h"

static int g_state;

static void* ii_create(const char* options, char* err, size_t err_size) {
  (void)options;
  (void)err;
  (void)err_size;
  return &g_state;
}

static int32_t ii_place(void* state, const sy_place_request_v1* r) {
  (void)state;
  return r->num_candidates;
}

static const sy_policy_v1 kPolicy = {SY_POLICY_ABI_VERSION, sizeof(sy_policy_v1), "invalid-index", ii_create,
                                     NULL, ii_place, NULL, SY_POLICY_IGNORES_COSTS};

SY_POLICY_EXPORT const sy_policy_v1* sy_policy_entry(void) { return &kPolicy; }
