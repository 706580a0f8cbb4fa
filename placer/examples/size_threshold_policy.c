/*
 * size-threshold: an example Switchyard placement policy plugin in plain C.
 *
 * Small nodes are not worth moving data for: a 2 µs Add whose inputs sit on
 * the GPU should stay there even if the CPU is idle. Large nodes are worth
 * it: a 5 ms MatMul should go wherever it will finish first. So:
 *
 *  - if even the fastest candidate needs at least threshold_us of compute,
 *    choose the candidate with the earliest predicted finish
 *    (backlog + transfer + issue + compute + output transfer);
 *  - otherwise choose the candidate whose memory already holds the most
 *    input bytes, breaking ties by earliest predicted finish.
 *
 * Options (after '?' in the path): threshold_us=<microseconds, default 50>.
 * e.g.  switchyard run m.onnx --policy './libsy_example_policy.so?threshold_us=20'
 *
 * It also shows observe(): with verbose=1 it counts, thread-safely, how many
 * completed nodes landed on the other side of the threshold from what was
 * predicted, and prints that when the policy is destroyed.
 *
 * Thread-safety: place() reads only its immutable options; observe() uses
 * atomics. Both may run concurrently, as the ABI requires.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_abi.h"

typedef struct size_threshold_state {
  double threshold_us;
  int verbose;
  atomic_long observed;
  atomic_long misjudged; /* predicted small but measured large, or vice versa */
} size_threshold_state;

/* Parses one "key=value" pair of length len; returns 0 or writes err. */
static int parse_option(size_threshold_state* s, const char* kv, size_t len, char* err, size_t err_size) {
  char buf[128];
  if (len >= sizeof buf) {
    snprintf(err, err_size, "option too long: %.40s...", kv);
    return -1;
  }
  memcpy(buf, kv, len);
  buf[len] = '\0';
  char* eq = strchr(buf, '=');
  if (!eq) return 0; /* bare words are not ours; ignore them */
  *eq = '\0';
  const char* key = buf;
  const char* value = eq + 1;
  char* end = NULL;
  if (strcmp(key, "threshold_us") == 0) {
    errno = 0;
    double v = strtod(value, &end);
    if (end == value || *end != '\0' || errno != 0 || !isfinite(v) || v < 0) {
      snprintf(err, err_size, "threshold_us must be a non-negative number of microseconds, got '%s'", value);
      return -1;
    }
    s->threshold_us = v;
  } else if (strcmp(key, "verbose") == 0) {
    s->verbose = strcmp(value, "0") != 0;
  }
  /* Unknown keys (the host's "seed", say) are ignored, as the ABI asks. */
  return 0;
}

static void* st_create(const char* options, char* err, size_t err_size) {
  size_threshold_state* s = (size_threshold_state*)calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, err_size, "out of memory");
    return NULL;
  }
  s->threshold_us = 50.0;
  atomic_init(&s->observed, 0);
  atomic_init(&s->misjudged, 0);
  const char* p = options;
  while (p && *p) {
    const char* comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len > 0 && parse_option(s, p, len, err, err_size) != 0) {
      free(s);
      return NULL;
    }
    p = comma ? comma + 1 : NULL;
  }
  return s;
}

static void st_destroy(void* state) {
  size_threshold_state* s = (size_threshold_state*)state;
  if (s->verbose) {
    fprintf(stderr, "size-threshold: %ld of %ld nodes fell on the other side of %.1f us than predicted\n",
            atomic_load(&s->misjudged), atomic_load(&s->observed), s->threshold_us);
  }
  free(s);
}

/* Predicted finish of candidate i. The issue and output-transfer arrays
 * were appended to the request after its first release: an older host
 * sends a shorter struct, so check struct_size before reading them. */
static double finish_us(const sy_place_request_v1* r, int32_t i) {
  const sy_candidate_v1* c = &r->candidates[i];
  double f = c->backlog_us + c->predicted_transfer_us + c->predicted_compute_us;
  if (r->struct_size >= offsetof(sy_place_request_v1, output_transfer_us) + sizeof r->output_transfer_us)
    f += r->issue_us[i] + r->output_transfer_us[i];
  return f;
}

/* Earliest predicted finish among candidates; lowest index on ties. */
static int32_t earliest_finish(const sy_place_request_v1* r) {
  int32_t best = 0;
  for (int32_t i = 1; i < r->num_candidates; ++i)
    if (finish_us(r, i) < finish_us(r, best)) best = i;
  return best;
}

/* Input bytes already resident in candidate c's memory. */
static unsigned long long resident_bytes(const sy_place_request_v1* r, const sy_candidate_v1* c) {
  unsigned long long bytes = 0;
  for (int32_t i = 0; i < r->num_inputs; ++i) {
    const sy_input_v1* in = &r->inputs[i];
    if (in->location_kind == c->memory_kind && in->location_index == c->memory_index) bytes += in->bytes;
  }
  return bytes;
}

static int32_t st_place(void* state, const sy_place_request_v1* r) {
  const size_threshold_state* s = (const size_threshold_state*)state;
  if (r->num_candidates <= 1) return 0;

  double fastest = r->candidates[0].predicted_compute_us;
  for (int32_t i = 1; i < r->num_candidates; ++i)
    if (r->candidates[i].predicted_compute_us < fastest) fastest = r->candidates[i].predicted_compute_us;
  if (fastest >= s->threshold_us) return earliest_finish(r);

  int32_t best = 0;
  unsigned long long best_bytes = resident_bytes(r, &r->candidates[0]);
  for (int32_t i = 1; i < r->num_candidates; ++i) {
    unsigned long long b = resident_bytes(r, &r->candidates[i]);
    if (b > best_bytes || (b == best_bytes && finish_us(r, i) < finish_us(r, best))) {
      best = i;
      best_bytes = b;
    }
  }
  return best;
}

static void st_observe(void* state, const sy_completion_v1* c) {
  size_threshold_state* s = (size_threshold_state*)state;
  if (!s->verbose) return;
  atomic_fetch_add_explicit(&s->observed, 1, memory_order_relaxed);
  if ((c->predicted_us >= s->threshold_us) != (c->measured_us >= s->threshold_us))
    atomic_fetch_add_explicit(&s->misjudged, 1, memory_order_relaxed);
}

static const sy_policy_v1 kPolicy = {
    SY_POLICY_ABI_VERSION, /* abi_version */
    sizeof(sy_policy_v1),  /* struct_size */
    "size-threshold",      /* name */
    st_create,
    st_destroy,
    st_place,
    st_observe,
    0, /* flags: place() reads the predicted costs */
};

SY_POLICY_EXPORT const sy_policy_v1* sy_policy_entry(void) { return &kPolicy; }
