/* Test plugin: records everything it is given (see record_policy.h), writes
 * 42 to the memo and chooses the last candidate. Deliberately C99 with no
 * atomics: the test calls it from one thread. */
#include "record_policy.h"

#include <stdio.h>
#include <string.h>

static sy_test_record g_record;

static void copy_str(char* dst, size_t n, const char* src) { snprintf(dst, n, "%s", src ? src : "(null)"); }

static void* rec_create(const char* options, char* err, size_t err_size) {
  (void)err;
  (void)err_size;
  ++g_record.creates;
  copy_str(g_record.options, sizeof g_record.options, options);
  return &g_record;
}

static void rec_destroy(void* state) { ++((sy_test_record*)state)->destroys; }

static int32_t rec_place(void* state, const sy_place_request_v1* r) {
  sy_test_record* s = (sy_test_record*)state;
  int32_t i, d;
  ++s->places;
  s->request_struct_size = r->struct_size;
  copy_str(s->op_type, sizeof s->op_type, r->op_type);
  copy_str(s->domain, sizeof s->domain, r->domain);
  copy_str(s->node_name, sizeof s->node_name, r->node_name);
  copy_str(s->graph_name, sizeof s->graph_name, r->graph_name);
  s->depth = r->depth;
  s->node_id = r->node_id;
  s->num_inputs = r->num_inputs;
  s->num_candidates = r->num_candidates;
  memset(s->dims, 0, sizeof s->dims);
  for (i = 0; i < r->num_inputs && i < SY_RECORD_MAX; ++i) {
    s->inputs[i] = r->inputs[i];
    for (d = 0; d < r->inputs[i].rank && d < SY_RECORD_MAX; ++d) s->dims[i][d] = r->inputs[i].dims[d];
    s->inputs[i].dims = NULL;
  }
  for (i = 0; i < r->num_candidates && i < SY_RECORD_MAX; ++i) {
    const int has_costs = r->struct_size >= offsetof(sy_place_request_v1, output_transfer_us) + sizeof(double*);
    s->candidates[i] = r->candidates[i];
    s->issue_us[i] = has_costs ? r->issue_us[i] : -1;
    s->output_transfer_us[i] = has_costs ? r->output_transfer_us[i] : -1;
  }
  s->memo_present = r->memo != NULL;
  s->memo_before = r->memo ? *r->memo : 0;
  if (r->memo) *r->memo = 42;
  return r->num_candidates - 1;
}

static void rec_observe(void* state, const sy_completion_v1* c) {
  sy_test_record* s = (sy_test_record*)state;
  ++s->observes;
  s->completion = *c;
  copy_str(s->completion_op_type, sizeof s->completion_op_type, c->op_type);
  copy_str(s->completion_node_name, sizeof s->completion_node_name, c->node_name);
  s->completion.op_type = s->completion.domain = s->completion.node_name = s->completion.graph_name = NULL;
}

static const sy_policy_v1 kPolicy = {SY_POLICY_ABI_VERSION, sizeof(sy_policy_v1), "record", rec_create,
                                     rec_destroy, rec_place, rec_observe, SY_POLICY_IGNORES_COSTS};

SY_POLICY_EXPORT const sy_policy_v1* sy_policy_entry(void) { return &kPolicy; }

SY_POLICY_EXPORT const sy_test_record* sy_test_last_record(void) { return &g_record; }
