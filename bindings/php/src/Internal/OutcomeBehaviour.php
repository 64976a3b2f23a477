<?php
declare(strict_types=1);

namespace Respite\Internal;

/**
 * The behaviour of the generated enum Respite\Outcome that calls the core:
 * names and numbers read, calls classified, Throwables interpreted.
 * @internal used by Respite\Outcome only
 */
trait OutcomeBehaviour
{
    /**
     * An Outcome, an outcome name or the core's number; the core words the
     * error for anything else (InvalidArgumentException).
     */
    public static function of(self|string|int $outcome): self
    {
        if ($outcome instanceof self) {
            return $outcome;
        }
        if (is_int($outcome)) { // the core words O1 for a number that is not one (got 9)
            return self::fromCode(respite_outcome_check($outcome));
        }
        return self::tryFrom($outcome) ?? self::fromCode(respite_outcome_from_name($outcome));
    }

    /** Classifies one call with the core's rules (spec section 1). */
    public static function classify(?int $httpStatus, bool $transportFailed = false, bool $bodyUsable = true): self
    {
        return self::fromCode(respite_classify(
            $transportFailed || $httpStatus === null ? 1 : 0,
            $httpStatus ?? 0,
            $bodyUsable ? 1 : 0,
        ));
    }

    /**
     * What a Throwable from the user's code means: [outcome, HTTP status or
     * 0, retry-after hint or 0]. An exception may say it: getOutcome() (an
     * Outcome or its name), an HTTP status from getStatusCode() on itself
     * or on getResponse() (PSR-7/PSR-18 and Guzzle style), and
     * getRetryAfter() in seconds, else the response's Retry-After header.
     * Anything else is a transport failure: the call did not complete.
     * @return array{0: Outcome, 1: int, 2: float}
     */
    public static function ofThrowable(\Throwable $e): array
    {
        $hint = 0.0;
        if (method_exists($e, 'getRetryAfter')) {
            $value = $e->getRetryAfter();
            if ((is_int($value) || is_float($value)) && $value > 0 && is_finite((float) $value)) {
                $hint = (float) $value;
            }
        }
        $status = self::statusOf($e);
        if ($status === null && method_exists($e, 'getResponse')) {
            $response = $e->getResponse();
            if (is_object($response)) {
                $status = self::statusOf($response);
                $hint = $hint > 0 || $status === null ? $hint : self::retryAfterOf($response, $status);
            }
        }
        if (method_exists($e, 'getOutcome')) {
            $outcome = $e->getOutcome();
            if (is_string($outcome)) {
                $outcome = self::tryFrom($outcome);
            }
            if ($outcome instanceof self) {
                return [$outcome, $status ?? 0, $hint];
            }
        }
        if ($status !== null) {
            $outcome = self::classify($status);
            // an exception carrying a 2xx: the answer could not be used
            return [$outcome === self::Success ? self::Unusable : $outcome, $status, $hint];
        }
        return [self::Transport, 0, $hint];
    }

    /**
     * Seconds from a response's Retry-After header (getHeaderLine(), PSR-7) by the client's rule
     * (C6: on a 429 or 503 answer only; the core reads the value); 0 when none.
     */
    public static function retryAfterOf(object $response, int $status): float
    {
        if (!method_exists($response, 'getHeaderLine')) {
            return 0.0;
        }
        return respite_retry_after_seconds($status, (string) $response->getHeaderLine('Retry-After'));
    }

    private static function statusOf(object $o): ?int
    {
        if (method_exists($o, 'getStatusCode')) {
            $status = $o->getStatusCode();
            if (is_int($status) && $status >= 100 && $status <= 599) {
                return $status;
            }
        }
        return null;
    }
}
