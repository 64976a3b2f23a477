<?php
declare(strict_types=1);

namespace Respite\Internal;

use Respite\Event;

/**
 * Forwards events to the user's logger, each as the core's line
 * (respite_event_message: the handle's name, then the event in words),
 * unchanged: a PSR-3-shaped object (warning() and info() methods;
 * Psr\Log\LoggerInterface fits without being needed), a callable
 * fn(string $level, string $message, array $context), or, when none is
 * given, error_log().
 * @internal
 */
final class Log
{
    /**
     * @param object|callable|null $logger
     * @return object|callable|null the logger, when it is one
     */
    public static function check($logger)
    {
        if ($logger === null || is_callable($logger)
            || (is_object($logger) && method_exists($logger, 'warning') && method_exists($logger, 'info'))) {
            return $logger;
        }
        throw new \TypeError('logger must be an object with warning() and info() methods (PSR-3), a callable '
            . 'fn(string $level, string $message, array $context), or null for error_log (got '
            . get_debug_type($logger) . ')');
    }

    /**
     * Takes every waiting event with $next($handle, $raw) (a respite_*_next_event),
     * logs each and returns $recent with them added (the last 64 kept).
     * @param object|callable|null $logger
     * @param list<Event> $recent
     * @return list<Event>
     */
    public static function drain($logger, array $recent, callable $next, $handle): array
    {
        $raw = new \respite_event();
        while ($next($handle, $raw) === 1) {
            $event = Event::fromRaw($raw);
            $recent[] = $event;
            $level = $event->isWarning() ? 'warning' : 'info';
            $context = ['respite_event' => $event->toArray()];
            if ($logger === null) {
                error_log($event->message);
            } elseif (is_object($logger) && method_exists($logger, $level)) {
                $logger->{$level}($event->message, $context);
            } else {
                $logger($level, $event->message, $context);
            }
        }
        return array_slice($recent, -64);
    }
}
