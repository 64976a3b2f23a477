package org.respite;

/**
 * A supplier that may throw a checked exception, so work such as
 * {@code () -> http.send(request, ofString())} (IOException, InterruptedException)
 * can be protected without wrapping: the caller sees the same exception.
 */
@FunctionalInterface
public interface CheckedSupplier<T, E extends Exception> {
    T get() throws E;
}
