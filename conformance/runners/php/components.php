<?php
/* The runner's components: one class per scenario "component", each step
 * done through the Respite\ classes. Observations mirror the C runner's. */
declare(strict_types=1);

namespace Respite\Conformance;

use Respite\Backoff;
use Respite\Engine;
use Respite\Event;
use Respite\Gate;
use Respite\InvalidPolicyException;
use Respite\InvalidSettingException;
use Respite\Outcome;
use Respite\Policy;
use Respite\Queue;
use Respite\RespiteException;
use Respite\Settings;
use Respite\TemporarilyUnavailableException;
use Respite\Testing;
use Respite\TransportException;

const COMPONENTS = [
    'settings' => SettingsComponent::class, 'outcome' => OutcomeComponent::class, 'gate' => GateComponent::class,
    'backoff' => BackoffComponent::class, 'policy' => PolicyComponent::class, 'delivery' => DeliveryComponent::class,
];

final class OpenFailure extends \Exception
{
}

/** A scripted attempt that failed: says its outcome, status and hint the way client errors do. */
final class ScriptedFailure extends \RuntimeException
{
    public function __construct(private string $outcome, private int $status, private float $retryAfter)
    {
        parent::__construct("$outcome ($status)");
    }

    public function getOutcome(): string
    {
        return $this->outcome;
    }

    public function getStatusCode(): ?int
    {
        return $this->status ?: null;
    }

    public function getRetryAfter(): float
    {
        return $this->retryAfter;
    }
}

/** A scripted failure of the caller's own code (B18): the default classifier does not count it. */
final class CallersOwnError extends \LogicException
{
}

/** A scripted answer the function returns (B18), read by the runner's $statusOf. */
final class ScriptedResponse
{
    public function __construct(public readonly int $status)
    {
    }
}

final class Observe
{
    public static function ok(): \stdClass
    {
        return new \stdClass();
    }

    public static function numberOrNull(float $v): ?float
    {
        return is_nan($v) || (is_infinite($v) && $v > 0) ? null : $v;
    }

    public static function error(\Throwable $e): array
    {
        if (!$e instanceof RespiteException) {
            return self::runnerError(get_class($e) . ': ' . $e->getMessage());
        }
        $detail = ['status' => $e->getStatus(), 'message' => $e->getMessage()];
        if ($e instanceof InvalidSettingException) {
            $detail['setting'] = $e->getSetting();
        }
        if ($e instanceof TemporarilyUnavailableException) {
            $detail['retry_after'] = self::numberOrNull($e->getRetryAfter());
        }
        return ['error' => $detail];
    }

    public static function runnerError(string $message): array
    {
        return ['error' => ['status' => 'runner', 'message' => $message]];
    }

    public static function unknownAction(string $component, string $action): array
    {
        return self::runnerError("the $component component has no action '$action'");
    }

    public static function event(Event $e): array
    {
        $out = ['type' => $e->type, 'at' => $e->at, 'line' => $e->message];
        switch ($e->type) {
            case 'recovery_started':
                $out += ['failures' => $e->failures, 'window' => $e->window, 'pause' => self::numberOrNull($e->pause)];
                break;
            case 'recovery_extended':
                $out['pause'] = self::numberOrNull($e->pause);
                break;
            case 'send_failed':
                $out += ['http_status' => $e->httpStatus, 'detail' => $e->detail];
                break;
            case 'unsent_at_close':
                $out['count'] = $e->count;
                break;
        }
        return $out;
    }

    /** Decoded JSON with objects as arrays, except {} which stays an object. */
    public static function toArrays($value)
    {
        if ($value instanceof \stdClass) {
            $vars = get_object_vars($value);
            if ($vars === []) {
                return $value;
            }
            return array_map([self::class, 'toArrays'], $vars);
        }
        if (is_array($value)) {
            return array_map([self::class, 'toArrays'], $value);
        }
        return $value;
    }

    public static function encode($value): string
    {
        return json_encode($value, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION
            | JSON_INVALID_UTF8_SUBSTITUTE | JSON_THROW_ON_ERROR);
    }

    public static function isObject($v): bool
    {
        return $v instanceof \stdClass || (is_array($v) && ($v === [] ? false : !array_is_list($v)));
    }
}

/** [outcome name, http status] of an outcome argument, which the driver made an
 * array: {"outcome", "status"?}, {"status", "usable"} or {"transport": true};
 * as the C runner's arg_outcome. */
function arg_outcome(array $arg): array
{
    if (array_key_exists('outcome', $arg)) {
        return [Outcome::of($arg['outcome'])->value, $arg['status'] ?? 0];
    }
    if ($arg['transport'] ?? false) {
        return [Outcome::classify(null, true)->value, 0];
    }
    return [Outcome::classify($arg['status'], false, $arg['usable'] ?? true)->value, $arg['status']];
}

/** A number the driver wrote as "NaN", "Infinity" or "-Infinity", or as a JSON number. */
function number_of($v): float
{
    return match ($v) {
        'NaN' => NAN, 'Infinity' => INF, '-Infinity' => -INF,
        default => (float) $v,
    };
}

/** Settings from a scenario object: {"number": "NaN"} is that double. */
function scalar_settings($values): array
{
    if ($values instanceof \stdClass || $values === null) {
        return [];
    }
    return array_map(static fn ($v) => is_array($v) ? number_of($v['number']) : $v, $values);
}

final class SettingsComponent
{
    private string $target;

    public function __construct(array $scenario)
    {
        if (!is_string($scenario['target'] ?? null)) {
            throw new OpenFailure('a settings scenario needs a "target"');
        }
        $this->target = $scenario['target'];
    }

    public function step(string $action, $arg, float $now)
    {
        if ($action === 'set') {
            if (!Observe::isObject($arg)) {
                return Observe::runnerError('set takes an object of settings');
            }
            Settings::check($this->target, scalar_settings($arg));
            return Observe::ok();
        }
        if ($action === 'get') {
            if (!is_string($arg)) {
                return Observe::runnerError("get takes a setting's name");
            }
            return ['value' => Settings::get($this->target, $arg)];
        }
        return Observe::unknownAction('settings', $action);
    }

    public function close(): void
    {
    }
}

final class OutcomeComponent
{
    public function __construct(array $scenario)
    {
    }

    public function step(string $action, $arg, float $now)
    {
        if ($action === 'classify') {
            return ['outcome' => Outcome::classify($arg['status'], $arg['transport'], $arg['usable'])->value];
        }
        if ($action === 'counts') {
            $name = is_array($arg) ? ($arg['outcome'] ?? null) : null;
            $all = is_array($arg) && ($arg['count_all_failures'] ?? null) === true;
            $outcome = Outcome::of(is_string($name) ? $name : '');
            return ['counts' => $all ? $outcome !== Outcome::Success : $outcome->counts()];
        }
        if ($action === 'parse') {
            return ['outcome' => Outcome::of(is_string($arg) ? $arg : '')->value];
        }
        return Observe::unknownAction('outcome', $action);
    }

    public function close(): void
    {
    }
}

final class GateComponent
{
    /** @var list<Gate> one gate, or "handles" gates from the same settings (a shared gate opened twice) */
    private array $gates = [];
    private Gate $gate; // the one a step's "handle" picked
    /** @var array<string, int> */
    private array $permits = [];

    public function __construct(array $scenario)
    {
        $profile = $scenario['profile'] ?? null;
        try {
            for ($i = 0; $i < ($scenario['handles'] ?? 1); $i++) {
                $this->gates[] = new Gate(scalar_settings($scenario['settings'] ?? null),
                    is_string($profile) ? $profile : null, static function (): void {
                    });
            }
        } catch (\Throwable $e) {
            $this->close();
            throw $e;
        }
        $this->gate = $this->gates[0];
    }

    public function useHandle(int $handle): void
    {
        $this->gate = $this->gates[$handle] ?? throw new OpenFailure("there is no gate handle $handle");
    }

    public function step(string $action, $arg, float $now)
    {
        $g = $this->gate;
        switch ($action) {
            case 'check':
                $d = $g->check($now);
                $name = is_array($arg) ? ($arg['as'] ?? null) : null;
                if (is_string($name) && $d->allowed) {
                    $this->permits[$name] = $d->permit;
                }
                $observed = ['allowed' => $d->allowed, 'probe' => $d->probe,
                    'retry_after' => Observe::numberOrNull($d->retryAfter)];
                if (!$d->allowed) {
                    $observed['message'] = respite_refusal_message($d->retryAfter);
                }
                return $observed;
            case 'record':
                [$outcome] = arg_outcome($arg);
                $permit = $name = $arg['permit'] ?? 0; // an integer: forged
                if (is_string($name)) {
                    if (!isset($this->permits[$name])) {
                        return Observe::runnerError("no admitted check was named '$name'");
                    }
                    $permit = $this->permits[$name];
                }
                $g->report($outcome, $permit, (float) $arg['retry_after'], $now);
                return ['outcome' => $outcome];
            case 'acquire':
                $g->acquire($now);
                return Observe::ok();
            case 'state':
                return ['state' => $g->state($now)];
            case 'retry_after':
                return ['retry_after' => Observe::numberOrNull($g->retryAfter($now))];
            case 'stats':
                $s = $g->stats();
                unset($s['probes_outstanding']);
                $s['delay'] = Observe::numberOrNull($s['delay']);
                $s['until'] = Observe::numberOrNull($s['until']);
                return ['stats' => $s];
            case 'events':
                return ['events' => array_map([Observe::class, 'event'], $g->takeEvents())];
            case 'reset':
                $g->reset($now);
                return Observe::ok();
            case 'refusal_message':
                $retryAfter = $arg === null ? INF : (float) $arg;
                return ['message' => respite_refusal_message($retryAfter)];
            case 'close':
                $g->close();
                return Observe::ok();
        }
        return Observe::unknownAction('gate', $action);
    }

    public function close(): void
    {
        foreach ($this->gates as $gate) {
            $gate->close();
        }
    }
}

final class BackoffComponent
{
    private Backoff $backoff;
    private ?Gate $gate = null;

    public function __construct(array $scenario)
    {
        $this->backoff = new Backoff(scalar_settings($scenario['settings'] ?? null));
        if (array_key_exists('gate', $scenario)) {
            try {
                $this->gate = new Gate(scalar_settings($scenario['gate']), null, static function (): void {
                });
            } catch (\Throwable $e) {
                $this->backoff->close();
                throw $e;
            }
        }
    }

    private function retry($arg): array
    {
        $answers = is_array($arg) && is_array($arg['attempts'] ?? null) ? $arg['attempts'] : [];
        $made = 0;
        $attempt = function () use (&$answers, &$made) {
            $made++;
            $answer = $answers === [] ? 200 : array_shift($answers);
            if (is_array($answer) && ($answer['callers_own'] ?? false) === true) {
                throw new CallersOwnError("scripted: the caller's own error");
            }
            if (is_array($answer) && array_key_exists('returned', $answer)) {
                return new ScriptedResponse((int) $answer['returned']);
            }
            [$outcome, $status] = arg_outcome(is_int($answer) ? ['status' => $answer] : $answer);
            if ($outcome !== 'success') {
                $hint = (float) (is_array($answer) ? ($answer['retry_after'] ?? 0) : 0);
                throw new ScriptedFailure($outcome, $status, $hint);
            }
            return new ScriptedResponse($status);
        };
        $statusOf = static fn (mixed $value): ?int => $value instanceof ScriptedResponse ? $value->status : null;
        $failure = null;
        $gaveUp = false;
        $returned = null; // the status of what run() returned (B20)
        $before = Testing::setImmediateRetries(is_array($arg) && ($arg['immediate'] ?? false) === true);
        try {
            $returned = $statusOf($this->backoff->run($attempt, $this->gate, null, $statusOf, $report));
        } catch (CallersOwnError) { // rethrown unchanged (B18)
            $failure = ['callers_own' => true];
        } catch (RespiteException $e) {
            $failure = ['status' => $e->getStatus()];
            // a refusal's retry_after and message depend on the real clock
            if (!$e instanceof TemporarilyUnavailableException) {
                $failure['message'] = $e->getMessage();
            }
            if ($e instanceof TransportException) { // the give-up, carrying the last returned value (B20)
                $gaveUp = true;
                $failure['result'] = $statusOf($e->getResult());
            }
        } finally {
            Testing::setImmediateRetries($before);
        }
        $observed = ['attempts' => $report['attempts'], 'gave_up' => $gaveUp];
        if ($report['last_outcome'] !== null) {
            $observed['last_outcome'] = $report['last_outcome']->value;
        }
        $observed['result'] = $returned;
        if ($failure !== null) {
            $observed['failure'] = $failure;
        }
        return $observed;
    }

    public function step(string $action, $arg, float $now)
    {
        $b = $this->backoff;
        switch ($action) {
            case 'start':
                return ['sequence' => $b->start()];
            case 'delay':
                return ['delay' => $b->delay($arg['retry'], $arg['sequence'], (float) $arg['retry_after'])];
            case 'delays':
                $delays = [];
                for ($k = 1; $k <= $arg['count']; $k++) {
                    $delays[] = $b->delay($k, $arg['sequence'], (float) $arg['retry_after']);
                }
                return ['delays' => $delays];
            case 'next':
            case 'schedule':
                [$outcome, $status] = arg_outcome($arg);
                [$sequence, $hint] = [$arg['sequence'], (float) $arg['retry_after']];
                if ($action === 'next') {
                    $delay = $b->next($sequence, $arg['attempt'], $outcome, $status, $hint);
                    return $delay === null ? ['retry' => false] : ['retry' => true, 'delay' => $delay];
                }
                $delays = [];
                for ($attempt = 1; $attempt <= 1000; $attempt++) {
                    $delay = $b->next($sequence, $attempt, $outcome, $status, $hint);
                    if ($delay === null) {
                        break;
                    }
                    $delays[] = $delay;
                }
                return ['delays' => $delays];
            case 'retries_on':
                [$outcome, $status] = arg_outcome($arg);
                return ['retries' => $b->retriesOn($outcome, $status)];
            case 'max_attempts':
                return ['max_attempts' => $b->maxAttempts()];
            case 'retry':
                return $this->retry($arg);
            case 'gave_up':
                [$outcome, $status] = arg_outcome($arg);
                return Observe::error($b->gaveUp($arg['attempts'], $outcome, $status));
            case 'close':
                $b->close();
                return Observe::ok();
        }
        return Observe::unknownAction('backoff', $action);
    }

    public function close(): void
    {
        $this->backoff->close();
        $this->gate?->close();
    }
}

function describe_policy(Policy $p): array
{
    return ['valid' => true, 'policy' => json_decode($p->toJson(), false),
        'fields' => ['name' => $p->name(), 'maximum_capacity' => $p->maximumCapacity(), 'retry_times' => $p->retryTimes(),
            'event_ttl' => $p->eventTtl(), 'prefetch_count' => $p->prefetchCount()]];
}

/** [policy or null, observation] of making a policy. */
function making(callable $make): array
{
    try {
        $policy = $make();
    } catch (InvalidPolicyException $e) {
        $problems = [];
        foreach ($e->getProblems() as $p) {
            $entry = ['pointer' => $p->pointer, 'message' => $p->message];
            if ($p->line > 0) {
                $entry += ['line' => $p->line, 'column' => $p->column];
            }
            $problems[] = $entry;
        }
        return [null, ['valid' => false, 'message' => $e->getMessage(), 'problems' => $problems]];
    }
    return [$policy, describe_policy($policy)];
}

/** A decoded JSON value back to text as jansson's JSON_INDENT(2) writes it. */
function document_text($value): string
{
    $text = json_encode($value, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE
        | JSON_PRESERVE_ZERO_FRACTION);
    // PHP indents by 4; jansson by 2
    return preg_replace_callback('/^( +)/m', static fn ($m) => str_repeat(' ', intdiv(strlen($m[1]), 2)), $text);
}

final class PolicyComponent
{
    private ?Policy $policy = null;

    public function __construct(array $scenario)
    {
    }

    private function keep(array $made)
    {
        [$policy, $observed] = $made;
        if ($policy !== null) {
            $this->policy?->close();
            $this->policy = $policy;
        }
        return $observed;
    }

    public function step(string $action, $arg, float $now)
    {
        switch ($action) {
            case 'validate':
                $arg = is_array($arg) ? $arg : [];
                $text = $arg['text'] ?? null;
                $pad = $arg['pad'] ?? null;
                if (is_string($text)) {
                    if (is_int($pad) && $pad > 0) {
                        $text .= str_repeat(' ', $pad);
                    }
                } elseif (array_key_exists('document', $arg)) {
                    $text = document_text($arg['document']);
                } elseif (is_string($arg['hex'] ?? null)) {
                    $text = hex2bin($arg['hex']); // bytes: a PHP string
                } else {
                    return Observe::runnerError('validate takes {"document": value}, {"text": string} or {"hex": string}');
                }
                return $this->keep(making(static fn () => Policy::fromJson($text)));
            case 'build':
                $arg = is_array($arg) ? $arg : [];
                $name = is_string($arg['name'] ?? null) ? $arg['name'] : null;
                $capacity = is_int($arg['maximum_capacity'] ?? null) ? $arg['maximum_capacity'] : 0;
                return $this->keep(making(static function () use ($arg, $name, $capacity) {
                    $b = Policy::builder($name, $capacity);
                    foreach (is_array($arg['handlers'] ?? null) ? $arg['handlers'] : [] as $h) {
                        $b->addHandler((string) ($h['on'] ?? ''), (string) ($h['strategy'] ?? ''));
                    }
                    foreach (['retry_times' => 'retryTimes', 'event_ttl' => 'eventTtl', 'prefetch_count' => 'prefetchCount'] as $k => $m) {
                        if (is_int($arg[$k] ?? null)) {
                            $b->$m($arg[$k]);
                        }
                    }
                    return $b->build();
                }));
            case 'default':
                return $this->keep(making(static fn () => Policy::default()));
            case 'strategy':
                $policy = $this->policy;
                if ($policy === null) { // no valid policy yet: a closed one, which the core refuses
                    $policy = Policy::default();
                    $policy->close();
                }
                $status = is_array($arg) ? ($arg['status'] ?? null) : null;
                $transport = is_array($arg) && ($arg['transport'] ?? null) === true;
                if (!$transport && !is_int($status)) {
                    $status = 0;
                }
                return ['strategy' => $policy->strategyFor($transport ? null : $status, $transport)];
        }
        return Observe::unknownAction('policy', $action);
    }

    public function close(): void
    {
        $this->policy?->close();
    }
}

final class DeliveryComponent
{
    private Policy $policy;
    private Queue $queue;
    private Gate $gate;
    private Engine $engine;
    private array $endpoint;
    private ?array $taken = null; // the events of the batch taken and not settled

    public function __construct(array $scenario)
    {
        $spec = $scenario['policy'] ?? null;
        $this->endpoint = $scenario['endpoint'];
        $quiet = static function (): void {
        };
        $this->policy = $spec === '@default' ? Policy::default() : Policy::fromJson(document_text($spec));
        $this->queue = new Queue($this->policy, scalar_settings($scenario['queue'] ?? null));
        $profile = $scenario['profile'] ?? null;
        $this->gate = new Gate(scalar_settings($scenario['gate'] ?? null), is_string($profile) ? $profile : null, $quiet);
        $this->engine = new Engine($this->queue, $this->gate, scalar_settings($scenario['engine'] ?? null),
            $quiet);
    }

    private function enqueue(array $events, float $now)
    {
        $accepted = 0;
        $refused = [];
        foreach ($events as $event) {
            try {
                $this->queue->enqueue((string) $event, $now);
                $accepted++;
            } catch (RespiteException $e) {
                $refused[$e->getStatus()] = ($refused[$e->getStatus()] ?? 0) + 1;
            }
        }
        $observed = ['accepted' => $accepted];
        if ($refused !== []) {
            $observed['refused'] = $refused;
        }
        return $observed;
    }

    private function nextAction(float $now): array
    {
        $action = $this->engine->next($now);
        $observed = ['action' => $action];
        if ($action === 'wait') {
            $observed['wait_seconds'] = Observe::numberOrNull($this->engine->waitSeconds());
        }
        return $observed;
    }

    private function take(float $now): array
    {
        if ($this->taken !== null) {
            return Observe::runnerError('the batch taken before has not been settled');
        }
        $payloads = $this->engine->take($now);
        if ($payloads === null) {
            return ['events' => [], 'attempts' => []];
        }
        $this->taken = $payloads;
        return ['events' => $payloads, 'attempts' => $this->engine->attempts()];
    }

    /** The next answer of the batch's first event scripted by_event that has
     * one left, else the sequence's next, else "otherwise". */
    private function scriptedAnswer()
    {
        $byEvent = &$this->endpoint['by_event'];
        foreach ($this->taken as $event) {
            if (is_array($byEvent) && ($byEvent[$event] ?? []) !== []) {
                return array_shift($byEvent[$event]);
            }
        }
        if (is_array($this->endpoint['sequence']) && $this->endpoint['sequence'] !== []) {
            return array_shift($this->endpoint['sequence']);
        }
        return $this->endpoint['otherwise'];
    }

    private function settle($answer, float $now): array
    {
        if ($this->taken === null) {
            return Observe::runnerError('settle needs a batch taken before');
        }
        $answer ??= $this->scriptedAnswer();
        if ($answer === null) {
            return Observe::runnerError('the endpoint has no more answers');
        }
        $given = is_int($answer) ? ['status' => $answer] : $answer;
        $this->taken = null; // settle frees the batch, whatever it returns
        $this->engine->settle($given['status'] ?? null, (float) ($given['retry_after'] ?? 0), $now);
        return ['answer' => $answer];
    }

    private function send(float $now): array
    {
        $observed = $this->take($now);
        if (isset($observed['error']) || $this->taken === null) {
            return $observed;
        }
        try {
            $settled = $this->settle(null, $now);
        } catch (RespiteException $e) {
            return Observe::error($e);
        }
        if (isset($settled['error'])) {
            return $settled;
        }
        $observed['answer'] = $settled['answer'];
        return $observed;
    }

    public function step(string $action, $arg, float $now)
    {
        switch ($action) {
            case 'enqueue':
                return $this->enqueue($arg, $now);
            case 'next':
                return $this->nextAction($now);
            case 'take':
                return $this->take($now);
            case 'settle':
                return $this->settle($arg, $now);
            case 'send':
                return $this->send($now);
            case 'run':
                $sends = [];
                for ($i = 0; $i < 100000; $i++) {
                    $observed = $this->nextAction($now);
                    if ($observed['action'] !== 'send') {
                        $observed['sends'] = $sends;
                        return $observed;
                    }
                    $sent = $this->send($now);
                    if (isset($sent['error'])) {
                        return $sent;
                    }
                    $sends[] = $sent['events'];
                }
                return Observe::runnerError('run: still sending after 100000 batches');
            case 'close':
                $this->engine->startClosing($now);
                return Observe::ok();
            case 'expire':
                return ['expired' => $this->queue->expire($now)];
            case 'state':
                return ['state' => $this->gate->state($now)];
            case 'stats':
                $q = $this->queue->stats();
                $e = $this->engine->stats();
                $queue = [];
                foreach (['accepted', 'delivered', 'dropped_capacity', 'expired', 'retries_exhausted', 'discarded',
                    'pending', 'in_flight', 'refused_full', 'refused_too_large', 'refused_closed', 'retried',
                    'pending_bytes', 'capacity', 'closed'] as $k) {
                    $queue[$k] = $q[$k];
                }
                $engine = [];
                foreach (['sends', 'probes', 'sends_failed', 'refusals', 'events_sent', 'unsent', 'closing',
                    'closed_while_paused'] as $k) {
                    $engine[$k] = $e[$k];
                }
                $engine['unsent'] ??= -1; // as the core's figure: -1 before done
                return ['queue' => $queue, 'engine' => $engine, 'balanced' => $q['balanced']];
            case 'events':
                return ['gate' => array_map([Observe::class, 'event'], $this->gate->takeEvents()),
                    'engine' => array_map([Observe::class, 'event'], $this->engine->takeEvents())];
        }
        return Observe::unknownAction('delivery', $action);
    }

    public function close(): void
    {
        $this->engine->close();
        $this->gate->close();
        $this->queue->close();
        $this->policy->close();
    }
}
