<?php
/**
 * The extension's class in PHP terms (what ext/gate_call.c registers), for
 * readers, IDEs and static analysers; PHP never loads this file.
 */

namespace Respite\Internal;

/** @internal Respite\Gate's parent: Gate::call in C (ext/gate_call.c). */
abstract class NativeGate
{
    /**
     * Calls $fn() through the gate (refused: TemporarilyUnavailableException, $fn not called).
     * What it returned or threw is reported as $classifier (default: the gate's) judges it; a
     * Throwable is rethrown unchanged (the caller's own is reported as `request_error`).
     * @template T
     * @param callable(): T $fn
     * @return T
     */
    public function call(callable $fn, ?\Respite\Classifier $classifier = null): mixed {}

    /**
     * The gate handle call() uses, with a reference of its own (null: none, as after close());
     * $judgesScalars: the classifier has result rules, so every value $fn returns is judged.
     */
    protected function setCallHandle(mixed $handle, bool $judgesScalars): void {}

    /**
     * What the fast path decided so far (this object's counter block, spec K5); null before the
     * first call() (for the replay test).
     * @return array{admitted: int, reported: int}|null
     */
    protected function fastPathCounts(): ?array {}
}
