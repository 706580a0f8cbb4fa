/*
 * Switchyard placement-policy plugin ABI, version 1.
 *
 * A plugin is a shared library that chooses, for every ready ONNX node, which
 * of the candidate devices runs it. Load one with
 *
 *     switchyard run model.onnx --policy ./libmypolicy.so
 *     switchyard run model.onnx --policy './libmypolicy.so?threshold_us=50'
 *
 * This header is the whole contract. It is plain C (C99 or later, or C++),
 * includes no other Switchyard header, and is meant to be copied into or
 * included by out-of-tree projects. Nothing here allocates; all pointers the
 * host passes are borrowed for the duration of the call only.
 *
 * WRITING A PLUGIN
 *
 * Export exactly one function with C linkage,
 *
 *     SY_POLICY_EXPORT const sy_policy_v1* sy_policy_entry(void);
 *
 * returning a pointer to a static sy_policy_v1 that stays valid while the
 * library is loaded. Fill abi_version with SY_POLICY_ABI_VERSION and
 * struct_size with sizeof(sy_policy_v1). Then the host calls
 *
 *     state = create(options, err, err_size)   once, when the policy is made
 *     place(state, request)                    once per ready node, hot path
 *     observe(state, completion)               once per finished node
 *     destroy(state)                           once, before dlclose
 *
 * THREAD-SAFETY
 *
 * place() and observe() may be called concurrently, from several threads and
 * several runs of one session at once, with the same state. Protect shared
 * state yourself (atomics or a mutex). create() and destroy() are never
 * concurrent with anything else on the same state. Different states (two
 * policies made from the same library) are independent, but globals in the
 * library are shared between them.
 *
 * ERRORS
 *
 * place() returns an index into request->candidates. An index outside
 * [0, num_candidates) is NOT corrected by the host: the run fails with
 * "placement policy 'NAME' chose candidate N of M", which is how a buggy
 * plugin gets noticed. Functions must not unwind (no C++ exceptions or
 * longjmp across this boundary).
 *
 * VERSIONING
 *
 * SY_POLICY_ABI_VERSION is a major version: the host loads only plugins that
 * report exactly the version it was built with. Within version 1, structs
 * grow only by appending fields at their end, and each carries struct_size so
 * that either side can tell which fields the other knows:
 *  - The host reads a field of sy_policy_v1 only if the plugin's struct_size
 *    covers it; fields past it count as absent (NULL / 0).
 *  - A plugin must check request->struct_size (and completion->struct_size)
 *    before reading a field appended after the first release; every field
 *    present in this header's first release is always there.
 *  - The array element structs sy_input_v1 and sy_candidate_v1 are frozen:
 *    new per-input or per-candidate data will arrive as new parallel arrays
 *    appended to sy_place_request_v1, so plugins may index them normally.
 */
#ifndef SWITCHYARD_PLACER_PLUGIN_ABI_H_
#define SWITCHYARD_PLACER_PLUGIN_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SY_POLICY_ABI_VERSION 1u
/* Name of the one symbol the host looks up with dlsym. */
#define SY_POLICY_ENTRY_SYMBOL "sy_policy_entry"

#if defined(__GNUC__) || defined(__clang__)
#define SY_POLICY_EXPORT __attribute__((visibility("default")))
#else
#define SY_POLICY_EXPORT
#endif

/* Device kinds, as in Switchyard's DeviceKind. Unknown values may appear in
 * later hosts; treat them as "some other accelerator". */
#define SY_DEVICE_CPU 0
#define SY_DEVICE_CUDA 1
#define SY_DEVICE_SIM 2

/* sy_policy_v1.flags */
/* place() never reads the candidates' predicted_* / backlog_us fields, so the
 * host may skip computing them (they are then 0). Leave unset if unsure. */
#define SY_POLICY_IGNORES_COSTS 0x1u

/* Size of the error buffer passed to create(). */
#define SY_POLICY_ERROR_SIZE 256u

/* One input of the node being placed. Frozen: never grows. */
typedef struct sy_input_v1 {
  /* Memory space holding the input's current copy: kind (SY_DEVICE_*) and
   * index. A candidate whose memory_kind/memory_index match needs no copy of
   * this input. Absent inputs report the host space (CPU, 0). */
  int32_t location_kind;
  int32_t location_index;
  /* ONNX TensorProto.DataType enum (1 = FLOAT, 7 = INT64, ...); 0 for an
   * omitted optional input. */
  int32_t dtype;
  /* Number of dimensions, or -1 when unknown (omitted input, sequence). A
   * scalar has rank 0. */
  int32_t rank;
  /* rank concrete dimensions; NULL when rank <= 0. */
  const int64_t* dims;
  /* Size of the tensor's data in bytes; 0 for omitted inputs. */
  uint64_t bytes;
} sy_input_v1;

/* One device able to run the node. Frozen: never grows. */
typedef struct sy_candidate_v1 {
  int32_t device_kind;    /* SY_DEVICE_* */
  int32_t device_ordinal; /* e.g. 1 for cuda:1 */
  int32_t memory_kind;    /* the device's memory space, comparable with */
  int32_t memory_index;   /*   sy_input_v1.location_kind/location_index */
  int32_t device_index;   /* position in the session's device list */
  int32_t reserved;       /* 0; keeps the doubles 8-byte aligned */
  /* The cost model's predictions in microseconds, or 0 when the plugin set
   * SY_POLICY_IGNORES_COSTS. Earliest finish on this candidate is roughly
   * backlog_us + predicted_transfer_us + issue_us[i] + predicted_compute_us
   * + output_transfer_us[i] (the last two: sy_place_request_v1). */
  double predicted_compute_us;  /* kernel time at the actual input shapes */
  double predicted_transfer_us; /* copying inputs not yet in memory_* here,
                                   from issuing each copy to its landing;
                                   each copy's share among the input's
                                   readers still to finish */
  double backlog_us;            /* until the device is free of queued work */
} sy_candidate_v1;

/* What place() is asked about. Borrowed for the duration of the call. */
typedef struct sy_place_request_v1 {
  uint32_t struct_size; /* sizeof(sy_place_request_v1) as the host knows it */
  int32_t depth;        /* control-flow nesting: 0 in the main graph, 1 inside
                           an If branch or loop body, and so on */
  /* NUL-terminated, never NULL; possibly empty (domain "" is the default
   * ONNX domain; unnamed nodes have name ""). */
  const char* op_type;
  const char* domain;
  const char* node_name;
  const char* graph_name;
  int32_t node_id; /* dense index of the node within its graph; -1 if unknown */
  int32_t num_inputs;
  const sy_input_v1* inputs; /* num_inputs entries, in the node's input order */
  int32_t num_candidates;    /* >= 1 */
  int32_t reserved;          /* 0 */
  const sy_candidate_v1* candidates; /* num_candidates entries */
  /* Per-node memory shared by all runs of the session, starting at -1, that
   * the plugin may use freely (e.g. the last choice, for hysteresis), or NULL
   * when the host has none. Other threads may be placing the same node in
   * another run at the same time, so access it atomically: with GCC/Clang,
   * __atomic_load_n(memo, __ATOMIC_RELAXED) and
   * __atomic_store_n(memo, v, __ATOMIC_RELAXED). */
  int32_t* memo;
  /* Appended after the first release: read them only if struct_size covers
   * them. Per candidate (num_candidates entries, parallel to candidates),
   * in microseconds, 0 under SY_POLICY_IGNORES_COSTS. */
  const double* issue_us;           /* host time to launch the kernel there,
                                       learned from earlier launches */
  const double* output_transfer_us; /* what the choice costs the consumers:
                                       copies to where they ran next to
                                       last time, or to where they run
                                       fastest (at most the time they would
                                       lose here) */
} sy_place_request_v1;

/* A finished node, for observe(). Borrowed for the duration of the call. */
typedef struct sy_completion_v1 {
  uint32_t struct_size; /* sizeof(sy_completion_v1) as the host knows it */
  int32_t node_id;      /* -1 if unknown */
  const char* op_type;  /* NUL-terminated, never NULL, possibly empty */
  const char* domain;
  const char* node_name;
  const char* graph_name;
  int32_t device_kind; /* where it ran */
  int32_t device_ordinal;
  int32_t device_index;
  int32_t reserved; /* 0 */
  double work;         /* the cost model's work size for this execution */
  double predicted_us; /* what the cost model expected */
  double measured_us;  /* what it took */
} sy_completion_v1;

typedef struct sy_policy_v1 {
  uint32_t abi_version; /* SY_POLICY_ABI_VERSION */
  uint32_t struct_size; /* sizeof(sy_policy_v1) */
  /* Short name shown in errors and --decisions, e.g. "size-threshold". NULL
   * means the library's file name. Must outlive the library's use. */
  const char* name;
  /* Required. options is a NUL-terminated list of comma-separated key=value
   * pairs: the host always passes "seed=N" first, followed by what the user
   * wrote after '?' in the policy path ("seed=0,threshold_us=50"). Ignore
   * keys you do not know. Return the plugin's state, or NULL on failure after
   * writing a NUL-terminated reason of at most err_size bytes (including the
   * NUL) to err. A stateless plugin returns any non-NULL pointer. */
  void* (*create)(const char* options, char* err, size_t err_size);
  /* Optional (may be NULL). Frees what create() returned. */
  void (*destroy)(void* state);
  /* Required. Returns the chosen index into request->candidates. */
  int32_t (*place)(void* state, const sy_place_request_v1* request);
  /* Optional (may be NULL). Measured time of a node placed earlier. */
  void (*observe)(void* state, const sy_completion_v1* completion);
  uint32_t flags; /* SY_POLICY_* flags; 0 if none */
} sy_policy_v1;

/* The one function a plugin defines (declared here so that the compiler
 * checks the plugin's definition against it). */
SY_POLICY_EXPORT const sy_policy_v1* sy_policy_entry(void);

/* The entry point's type, for hosts: dlsym(handle, SY_POLICY_ENTRY_SYMBOL). */
typedef const sy_policy_v1* (*sy_policy_entry_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SWITCHYARD_PLACER_PLUGIN_ABI_H_ */
