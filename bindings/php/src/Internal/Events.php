<?php
declare(strict_types=1);

namespace Respite\Internal;

use Respite\Event;

/**
 * @internal a handle's events (from its NEXT_EVENT function), each logged as the core's line
 * to a PSR-3-shaped object, a callable fn(string $level, string $message, array $context), or error_log()
 */
trait Events
{
    /** @var object|callable|null */
    private $logger;
    /** @var list<Event> seen, not yet taken by takeEvents() (at most 64) */
    private array $recent = [];

    /** @return list<Event> the events seen (and logged) since the last call, oldest first, at most 64 */
    public function takeEvents(): array
    {
        $this->drain();
        [$out, $this->recent] = [$this->recent, []];
        return $out;
    }

    /** @param object|callable|null $logger */
    private function logTo($logger): void
    {
        if ($logger !== null && !is_callable($logger)
            && !(is_object($logger) && method_exists($logger, 'warning') && method_exists($logger, 'info'))) {
            throw new \TypeError('logger must be an object with warning() and info() methods (PSR-3), a callable '
                . 'fn(string $level, string $message, array $context), or null for error_log (got '
                . get_debug_type($logger) . ')');
        }
        $this->logger = $logger;
    }

    /** $call(), then pollEvents() whether it returned or threw. */
    private function polled(callable $call): mixed
    {
        try {
            return $call();
        } finally {
            $this->pollEvents();
        }
    }

    /** Takes every waiting event and logs it (a closed handle: the core's ClosedException). */
    private function drain(): void
    {
        static $raw = null; // one struct for every call: enqueue() stays cheap
        $raw ??= new \respite_event();
        $next = self::NEXT_EVENT;
        while ($next($this->ptr, $raw) === 1) {
            $event = new Event($raw);
            $this->recent[] = $event;
            $level = $event->isWarning() ? 'warning' : 'info';
            $context = ['respite_event' => $event->toArray()];
            if ($this->logger === null) {
                error_log($event->message);
            } elseif (is_object($this->logger) && method_exists($this->logger, $level)) {
                $this->logger->{$level}($event->message, $context);
            } else {
                ($this->logger)($level, $event->message, $context);
            }
        }
        $this->recent = array_slice($this->recent, -64);
    }
}
