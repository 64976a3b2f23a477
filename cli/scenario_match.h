/* Compares a step's observation with its "expect" exactly as conformance/run
 * does (conformance/README.md, "Matching rules"), so `respite simulate` and
 * the conformance suite agree on what passes. */
#ifndef RESPITE_CLI_SCENARIO_MATCH_H
#define RESPITE_CLI_SCENARIO_MATCH_H

#include <jansson.h>
#include <stddef.h>

/* 1 when observed matches expected: objects in expected are subsets, lists
 * match element by element with the same length, numbers to 1e-9 relative
 * (at least 1e-9 absolute), null only matches null. Otherwise 0 and a short
 * reason ("/retry_after: expected 59, got 58.5") in reason. */
int scenario_match(json_t *expected, json_t *observed, char *reason, size_t size);

/* As scenario_match for one step: an observation with "error" fails unless
 * the expectation has "error"; a step without "expect" always passes.
 * Returns 1 pass, 0 fail (reason filled). */
int scenario_step_passes(json_t *expect, json_t *observed, char *reason, size_t size);

#endif
