<?php
declare(strict_types=1);

namespace Respite\Http;

use Psr\Http\Client\NetworkExceptionInterface;
use Psr\Http\Message\RequestInterface;

/**
 * The retries gave up on a request that never got an answer (the core's give-up message, B14):
 * a PSR-18 network exception, with the last attempt's exception as getPrevious().
 */
final class TransportException extends \Respite\TransportException implements NetworkExceptionInterface
{
    public function __construct(string $message, private readonly RequestInterface $request, ?\Throwable $previous = null)
    {
        parent::__construct($message, null, $previous);
    }

    public function getRequest(): RequestInterface
    {
        return $this->request;
    }
}
