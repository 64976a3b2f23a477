package org.respite;

import java.util.List;

/** Status {@code invalid_policy}: a delivery policy document is not valid; every problem is listed. */
public class InvalidPolicyException extends RespiteException {
    private static final long serialVersionUID = 1L;
    private final List<PolicyProblem> problems;

    public InvalidPolicyException(String message, List<PolicyProblem> problems) {
        super("invalid_policy", message);
        this.problems = List.copyOf(problems);
    }

    /** Every problem the core found, in document order. */
    public List<PolicyProblem> getProblems() {
        return problems;
    }
}
