/* Test plugin: claims a plugin ABI version no Switchyard supports, as a
 * plugin built against a future header would. The host must refuse it before
 * calling anything but the entry point. */
#include <stddef.h>

#include "plugin_abi.h"

static int32_t never_place(void* state, const sy_place_request_v1* r) {
  (void)state;
  (void)r;
  return 0;
}
static void* never_create(const char* options, char* err, size_t err_size) {
  (void)options;
  (void)err;
  (void)err_size;
  return NULL;
}

static const sy_policy_v1 kPolicy = {SY_POLICY_ABI_VERSION + 98, sizeof(sy_policy_v1), "bad-abi", never_create,
                                     NULL, never_place, NULL, 0};

SY_POLICY_EXPORT const sy_policy_v1* sy_policy_entry(void) { return &kPolicy; }
