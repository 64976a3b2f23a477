<?php
declare(strict_types=1);

namespace Respite\Internal;

use Respite\Event;

/**
 * Forwards events to the user's logger: a PSR-3-shaped object (warning()
 * and info() methods; Psr\Log\LoggerInterface fits without being needed),
 * a callable fn(string $level, string $message, array $context), or, when
 * none is given, error_log().
 * @internal
 */
final class Log
{
    /** @param object|callable|null $logger */
    public static function check($logger): void
    {
        if ($logger === null || is_callable($logger)
            || (is_object($logger) && method_exists($logger, 'warning') && method_exists($logger, 'info'))) {
            return;
        }
        throw new \TypeError('logger must be an object with warning() and info() methods (PSR-3), a callable '
            . 'fn(string $level, string $message, array $context), or null for error_log (got '
            . get_debug_type($logger) . ')');
    }

    /**
     * @param object|callable|null $logger
     * @param list<Event> $events
     */
    public static function events($logger, ?string $source, array $events): void
    {
        foreach ($events as $event) {
            $level = $event->isWarning() ? 'warning' : 'info';
            $message = 'respite: ' . ($source !== null ? $source . ': ' : '') . $event->describe();
            $context = ['respite_event' => $event->toArray()];
            if ($logger === null) {
                error_log($message);
            } elseif (is_object($logger) && method_exists($logger, $level)) {
                $logger->{$level}($message, $context);
            } else {
                $logger($level, $message, $context);
            }
        }
    }
}
