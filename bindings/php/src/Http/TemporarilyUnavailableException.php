<?php
declare(strict_types=1);

namespace Respite\Http;

use Psr\Http\Client\ClientExceptionInterface;

/**
 * The gate's refusal (no request was sent) as a PSR-18 client exception: GatedClient and
 * GuzzleMiddleware throw it. Catch it as Respite\TemporarilyUnavailableException (getRetryAfter())
 * or as Psr\Http\Client\ClientExceptionInterface.
 */
final class TemporarilyUnavailableException extends \Respite\TemporarilyUnavailableException implements
    ClientExceptionInterface
{
    /** The core's refusal, message and retry_after unchanged. */
    public static function of(\Respite\TemporarilyUnavailableException $refusal): self
    {
        return $refusal instanceof self ? $refusal : new self($refusal->getMessage(), $refusal->getRetryAfter(), $refusal);
    }
}
