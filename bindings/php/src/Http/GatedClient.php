<?php
declare(strict_types=1);

namespace Respite\Http;

use Psr\Http\Client\ClientInterface;
use Psr\Http\Message\RequestInterface;
use Psr\Http\Message\ResponseInterface;
use Respite\Backoff;
use Respite\Classifier;
use Respite\Gate;

/**
 * A PSR-18 client that sends through a gate: any PSR-18 client (Guzzle, Symfony's Psr18Client,
 * an SDK's) wrapped.
 *
 *   $http = new GatedClient(new \GuzzleHttp\Client(['timeout' => 5]), $gate, new Backoff(['max_attempts' => 3]));
 *   $response = $http->sendRequest($request);
 *
 * While the gate is paused a request is refused without reaching $client: a
 * Respite\Http\TemporarilyUnavailableException (PSR-18's ClientExceptionInterface, getRetryAfter()).
 * Every answer and exception is judged by $classifier (default: the gate's): transport errors,
 * 5xx and 429 answers count, other 4xx do not; a 429/503's Retry-After is passed to the gate
 * (and the back-off). With $backoff, failures are retried by the core's schedule; when it gives
 * up on an answer that answer is returned (as an HTTP client answers: spec B20, the give-up's
 * getResult()), on an exception a Respite\Http\TransportException
 * (PSR-18's NetworkExceptionInterface) with the last one as getPrevious(). Without a back-off
 * the client's exceptions pass unchanged.
 */
final class GatedClient implements ClientInterface
{
    /** @var (callable(float): mixed)|null */
    private $sleep;

    /**
     * @param (callable(float): mixed)|null $sleep waits between retries (null: usleep)
     */
    public function __construct(
        private readonly ClientInterface $client,
        private readonly Gate $gate,
        private readonly ?Backoff $backoff = null,
        private readonly ?Classifier $classifier = null,
        ?callable $sleep = null,
    ) {
        $this->sleep = $sleep;
    }

    public function sendRequest(RequestInterface $request): ResponseInterface
    {
        $send = fn (): ResponseInterface => $this->client->sendRequest($request);
        try {
            if ($this->backoff === null) {
                return $this->gate->call($send, $this->classifier);
            }
            try {
                return $this->backoff->run($send, $this->gate, $this->sleep, classifier: $this->classifier);
            } catch (\Respite\TransportException $gaveUp) {
                // the core's give-up (B14, B20) made by Backoff::run, with the last answer or exception
                if ($gaveUp->getResult() instanceof ResponseInterface) {
                    return $gaveUp->getResult();
                }
                if (get_class($gaveUp) !== \Respite\TransportException::class || $gaveUp->getPrevious() === null) {
                    throw $gaveUp;
                }
                throw new TransportException($gaveUp->getMessage(), $request, $gaveUp->getPrevious());
            }
        } catch (\Respite\TemporarilyUnavailableException $refused) {
            throw TemporarilyUnavailableException::of($refused);
        }
    }
}
