package org.respite;

/**
 * The answer of {@link Gate#check}: admitted (with a permit to report the
 * outcome with, maybe as a probe) or refused (with the seconds until a call
 * may be admitted, infinite under recover_never).
 */
public record Decision(boolean allowed, boolean probe, long permit, double retryAfter) {}
