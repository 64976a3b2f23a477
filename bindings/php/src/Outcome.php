<?php
declare(strict_types=1);

namespace Respite;


/** What happened to one call (spec section 1); the values are the core's names. */
enum Outcome: string
{
    case Success = 'success';
    case RequestError = 'request_error';
    case Throttled = 'throttled';
    case ServerError = 'server_error';
    case Unusable = 'unusable';
    case Transport = 'transport';

    /** The core's number for this outcome. */
    public function code(): int
    {
        return match ($this) {
            self::Success => RESPITE_OUTCOME_SUCCESS,
            self::RequestError => RESPITE_OUTCOME_REQUEST_ERROR,
            self::Throttled => RESPITE_OUTCOME_THROTTLED,
            self::ServerError => RESPITE_OUTCOME_SERVER_ERROR,
            self::Unusable => RESPITE_OUTCOME_UNUSABLE,
            self::Transport => RESPITE_OUTCOME_TRANSPORT,
        };
    }

    /** Whether this outcome counts against the service (by default). */
    public function counts(): bool
    {
        return respite_outcome_counts($this->code(), 0) === 1;
    }

    public static function fromCode(int $code): self
    {
        return self::from((string) respite_outcome_name($code));
    }

    /**
     * An Outcome, an outcome name or the core's number; the core words the
     * error for anything else (InvalidArgumentException).
     */
    public static function of(self|string|int $outcome): self
    {
        if ($outcome instanceof self) {
            return $outcome;
        }
        if (is_string($outcome)) {
            $known = self::tryFrom($outcome);
            if ($known !== null) {
                return $known;
            }
        } elseif (respite_outcome_name($outcome) !== null) {
            return self::fromCode($outcome);
        }
        return self::fromCode(respite_outcome_from_name((string) $outcome));
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
     * getRetryAfter() in seconds. Anything else is a transport failure:
     * the call did not complete.
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
