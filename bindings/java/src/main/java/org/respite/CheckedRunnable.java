package org.respite;

/** A runnable that may throw a checked exception (see {@link CheckedSupplier}). */
@FunctionalInterface
public interface CheckedRunnable<E extends Exception> {
    void run() throws E;
}
