<?php
declare(strict_types=1);

namespace Respite\Internal;

use Respite\InvalidPolicyException;
use Respite\Problem;
use Respite\RespiteException;
use Respite\TemporarilyUnavailableException;

/**
 * Turns the raw extension's errors into Respite\ exceptions. The extension
 * throws \Exception("<status_name>: <message>") (swig/respite.i); the class
 * is picked by status name, the message kept word for word.
 * @internal
 */
final class Errors
{
    /** SWIG_RuntimeError: the code of every error the core reported. */
    private const RAW_CODE = -3;

    /** @var array<string, int>|null status name => code, from the core's table */
    private static ?array $codes = null;

    public static function code(string $status): int
    {
        if (self::$codes === null) {
            self::$codes = [];
            for ($i = 0, $n = respite_status_count(); $i < $n; $i++) {
                self::$codes[respite_status_name($i)] = $i;
            }
        }
        return self::$codes[$status] ?? self::$codes['internal'];
    }

    /** The class for a status: "queue_full" => Respite\QueueFullException. */
    public static function classFor(string $status): string
    {
        $class = 'Respite\\' . str_replace(' ', '', ucwords(str_replace('_', ' ', $status))) . 'Exception';
        return $status !== 'ok' && class_exists($class) ? $class : RespiteException::class;
    }

    /** The Respite\ exception for a raw error; anything else unchanged. */
    public static function translate(\Throwable $raw): \Throwable
    {
        if (get_class($raw) !== \Exception::class || $raw->getCode() !== self::RAW_CODE) {
            return $raw;
        }
        $parts = explode(': ', $raw->getMessage(), 2);
        if (count($parts) !== 2) {
            return $raw;
        }
        return self::make($parts[0], $parts[1]);
    }

    public static function make(string $status, string $message): RespiteException
    {
        $class = self::classFor($status);
        if ($class === RespiteException::class) {
            return new RespiteException($message, $status);
        }
        return new $class($message);
    }

    /** The G17 refusal, worded by the core. */
    public static function refusal(float $retryAfter): TemporarilyUnavailableException
    {
        return TemporarilyUnavailableException::forRetryAfter($retryAfter);
    }

    /** invalid_policy with every problem the core listed. */
    public static function invalidPolicy(\Throwable $raw, $problems): \Throwable
    {
        $error = self::translate($raw);
        if (!$error instanceof InvalidPolicyException) {
            return $error;
        }
        return new InvalidPolicyException($error->getMessage(), self::problems($problems));
    }

    /** @return list<Problem> */
    public static function problems($problems): array
    {
        $out = [];
        for ($i = 0, $n = respite_problems_count($problems); $i < $n; $i++) {
            $out[] = new Problem(
                (string) respite_problems_pointer($problems, $i),
                (string) respite_problems_message($problems, $i),
                respite_problems_line($problems, $i),
                respite_problems_column($problems, $i),
            );
        }
        return $out;
    }
}
