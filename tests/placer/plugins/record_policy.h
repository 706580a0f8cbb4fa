/* What record_policy.c saw in its last calls, for plugin_policy_test.cc to
 * check the host's C++ -> C conversion field by field. Test-only. */
#ifndef SWITCHYARD_TESTS_PLACER_PLUGINS_RECORD_POLICY_H_
#define SWITCHYARD_TESTS_PLACER_PLUGINS_RECORD_POLICY_H_

#include <stdint.h>

#include "placer/plugin_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SY_RECORD_MAX 4

typedef struct sy_test_record {
  int32_t creates, destroys, places, observes;
  char options[256];
  /* last place() */
  uint32_t request_struct_size;
  char op_type[64], domain[64], node_name[64], graph_name[64];
  int32_t depth, node_id, num_inputs, num_candidates;
  sy_input_v1 inputs[SY_RECORD_MAX]; /* dims pointers cleared; see dims */
  int64_t dims[SY_RECORD_MAX][SY_RECORD_MAX];
  sy_candidate_v1 candidates[SY_RECORD_MAX];
  int32_t memo_present, memo_before;
  double issue_us[SY_RECORD_MAX], output_transfer_us[SY_RECORD_MAX]; /* -1: not in the request */
  /* last observe() */
  sy_completion_v1 completion; /* string pointers cleared; see below */
  char completion_op_type[64], completion_node_name[64];
} sy_test_record;

/* Exported by record_policy.c next to sy_policy_entry. */
typedef const sy_test_record* (*sy_test_record_fn)(void);
#define SY_TEST_RECORD_SYMBOL "sy_test_last_record"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
