package org.respite;

/** The answer of {@link Gate#check}: admitted with a permit (maybe a probe), or refused with retry_after. */
public record Decision(boolean allowed, boolean probe, long permit, double retryAfter) {}
