<?php
declare(strict_types=1);

namespace Respite\Http;

use GuzzleHttp\Promise\Create;
use GuzzleHttp\Promise\PromiseInterface;
use Psr\Http\Message\RequestInterface;
use Respite\Backoff;
use Respite\Classifier;
use Respite\Gate;
use Respite\Outcome;

/**
 * A Guzzle middleware that sends every request of a HandlerStack through a gate:
 *
 *   $stack = \GuzzleHttp\HandlerStack::create();
 *   $stack->push(GuzzleMiddleware::gate($gate, new Backoff(['max_attempts' => 3])), 'respite');
 *   $http = new \GuzzleHttp\Client(['handler' => $stack]);
 *
 * Pushed on HandlerStack::create()'s stack it runs inside http_errors and allow_redirects: it
 * sees every answer (each redirect hop asks the gate), and a 5xx it gave up on reaches
 * http_errors as usual. While the gate is paused a request is rejected without reaching the
 * handler (no network): Respite\Http\TemporarilyUnavailableException, with getRetryAfter().
 * Each answer or error is judged by $classifier (default: the gate's): transport errors, 5xx
 * and 429 count, other 4xx do not (an error carrying a response is judged by it); a 429/503's
 * Retry-After reaches the gate. With $backoff, failures are retried by the core's schedule,
 * each retry waiting with Guzzle's `delay` option (the gate is asked before each attempt is
 * handed on); when it gives up on an answer that answer is the result, on an error a
 * Respite\Http\TransportException (PSR-18's NetworkExceptionInterface) with the last error as getPrevious().
 */
final class GuzzleMiddleware
{
    /** @param callable(RequestInterface, array<string, mixed>): PromiseInterface $handler */
    private function __construct(
        private readonly Gate $gate,
        private readonly ?Backoff $backoff,
        private readonly Classifier $rules,
        private $handler,
    ) {
    }

    /**
     * The middleware, for HandlerStack::push().
     * @return callable(callable): (callable(RequestInterface, array<string, mixed>): PromiseInterface)
     */
    public static function gate(Gate $gate, ?Backoff $backoff = null, ?Classifier $classifier = null): callable
    {
        $rules = $classifier ?? $gate->classifier();
        return static fn (callable $handler): \Closure => static function (RequestInterface $request, array $options)
            use ($gate, $backoff, $rules, $handler): PromiseInterface {
            return (new self($gate, $backoff, $rules, $handler))->attempt($request, $options, $backoff?->begin(), 1);
        };
    }

    /** @param array<string, mixed> $options */
    private function attempt(RequestInterface $request, array $options, ?\respite_retry_call $call, int $attempt): PromiseInterface
    {
        try {
            $permit = $this->gate->acquire();
        } catch (\Respite\TemporarilyUnavailableException $refused) {
            return Create::rejectionFor(TemporarilyUnavailableException::of($refused));
        }
        $settle = fn (?\Throwable $thrown, mixed $response): mixed
            => $this->settle($request, $options, $call, $attempt, $permit, $thrown, $response);
        try {
            $promise = ($this->handler)($request, $options);
        } catch (\Throwable $thrown) { // a handler that throws instead of rejecting: reported all the same
            return Create::promiseFor($settle($thrown, null));
        }
        return $promise->then(
            static fn (mixed $response): mixed => $settle(null, $response),
            static fn (mixed $reason): mixed => $settle(Create::exceptionFor($reason), null),
        );
    }

    /**
     * Reports one attempt, then: its answer, its rejection, or the next attempt.
     * @param array<string, mixed> $options
     */
    private function settle(
        RequestInterface $request,
        array $options,
        ?\respite_retry_call $call,
        int $attempt,
        int $permit,
        ?\Throwable $thrown,
        mixed $response,
    ): mixed {
        [$outcome, $status, $hint, $own] = $this->rules->settle($thrown, $response);
        $this->gate->reportCode($outcome->code(), $permit, $hint, null);
        $done = $thrown === null ? $response : Create::rejectionFor($thrown);
        if ($own || $outcome === Outcome::Success || $this->backoff === null || $call === null) {
            return $done;
        }
        try {
            respite_retry_decide($this->backoff->raw(), $call, $attempt, $outcome->code(), $status, $hint);
        } catch (\Respite\TransportException $gaveUp) {
            return $thrown === null ? $done
                : Create::rejectionFor(new TransportException($gaveUp->getMessage(), $request, $thrown));
        }
        return $this->attempt($request, ['delay' => $call->wait * 1000] + $options, $call, $attempt + 1);
    }
}
