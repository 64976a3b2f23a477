package org.respite;

/**
 * One problem of a policy document: a JSON pointer to the value ("" for the
 * whole document), the core's message, and for parse errors the line and column
 * (0 when they do not apply).
 */
public record PolicyProblem(String pointer, String message, int line, int column) {
    @Override
    public String toString() {
        return (pointer.isEmpty() ? "" : pointer + ": ") + message;
    }
}
