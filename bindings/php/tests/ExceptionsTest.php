<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\ClosedException;
use Respite\Gate;
use Respite\InvalidSettingException;
use Respite\RespiteException;
use Respite\TemporarilyUnavailableException;

final class ExceptionsTest extends TestCase
{
    public function testEveryStatusOfTheCoreHasItsClass(): void
    {
        $seen = [];
        for ($code = 1; $code < respite_status_count(); $code++) {
            $status = respite_status_name($code);
            $class = 'Respite\\' . str_replace(' ', '', ucwords(str_replace('_', ' ', $status))) . 'Exception';
            $this->assertTrue(class_exists($class), "$class for status $status");
            $this->assertTrue(is_subclass_of($class, RespiteException::class));
            $this->assertSame($status, $class::STATUS);
            $error = RespiteException::fromError($code, 'some message');
            $this->assertInstanceOf($class, $error);
            $this->assertSame($code, $error->getCode());
            $this->assertSame($status, $error->getStatus());
            $this->assertSame('some message', $error->getMessage());
            $seen[] = basename($class);
        }
        $this->assertCount(respite_status_count() - 1, array_unique($seen));
        // and no class for a status the core does not have
        foreach (glob(__DIR__ . '/../generated/*Exception.php') as $file) {
            $class = 'Respite\\' . basename($file, '.php');
            if ($class !== RespiteException::class) {
                $this->assertContains(basename($file, '.php'), array_map(fn ($c) => substr($c, 8), $seen), $file);
            }
        }
    }

    public function testRespiteExceptionIsARuntimeException(): void
    {
        $this->assertTrue(is_subclass_of(RespiteException::class, \RuntimeException::class));
    }

    public function testTheExtensionThrowsTheClassOfTheCoresStatus(): void
    {
        try {
            respite_gate_admit(null, 1.0);
            $this->fail('no exception');
        } catch (ClosedException $e) {
            $this->assertSame('gate is closed', $e->getMessage());
            $this->assertSame(RESPITE_E_CLOSED, $e->getCode());
            $this->assertSame('closed', $e->getStatus());
        }
    }

    /** Without the Respite\ classes the raw extension still throws the core's message and status. */
    public function testWithoutTheClassesAnExceptionWithTheCoresMessage(): void
    {
        preg_match('#\S*/respite\.so$#m', (string) file_get_contents('/proc/self/maps'), $m);
        $this->assertNotEmpty($m, 'the loaded respite.so');
        $code = 'try { respite_gate_admit(null, 1.0); } catch (\Throwable $e) '
            . '{ echo get_class($e), "|", $e->getCode(), "|", $e->getMessage(); }';
        $out = shell_exec(escapeshellarg(PHP_BINARY) . ' -n -d extension=' . escapeshellarg($m[0]) . ' -r '
            . escapeshellarg($code));
        $this->assertSame('Exception|' . RESPITE_E_CLOSED . '|gate is closed', $out);
    }

    public function testUnknownStatusGivesTheRootClass(): void
    {
        $error = RespiteException::fromError(99, 'm');
        $this->assertSame(RespiteException::class, get_class($error));
        $this->assertSame('unknown', $error->getStatus());
    }

    /** The setting is the core's field, not read from the message: an unknown key names itself whole. */
    public function testInvalidSettingNamesTheSetting(): void
    {
        $cases = ['probes' => [-4, 'probes must be an integer from 0 to 1000 (got -4)'], 'probes:x' => [1, null]];
        foreach ($cases as $setting => [$value, $message]) {
            try {
                new Gate([$setting => $value]);
                $this->fail('no exception');
            } catch (InvalidSettingException $e) {
                $this->assertSame($setting, $e->getSetting());
                $this->assertSame('invalid_setting', $e->getStatus());
                $this->assertStringStartsWith("$setting ", $e->getMessage());
                if ($message !== null) {
                    $this->assertSame($message, $e->getMessage());
                }
            }
        }
    }

    public function testRefusalCarriesRetryAfterAndTheCoresWords(): void
    {
        $gate = respite_gate_new(null);
        try {
            respite_gate_report($gate, 0, RESPITE_OUTCOME_TRANSPORT, 0.0, 1.0);
            for ($i = 0; $i < 9; $i++) {
                respite_gate_report($gate, 0, RESPITE_OUTCOME_TRANSPORT, 0.0, 1.0);
            }
            respite_gate_admit($gate, 13.5);
            $this->fail('admitted while open');
        } catch (TemporarilyUnavailableException $e) {
            $this->assertSame(47.5, $e->getRetryAfter());
            $this->assertSame(respite_refusal_message(47.5), $e->getMessage());
            $this->assertStringContainsString('recovery resumes in 47.5s', $e->getMessage());
        } finally {
            respite_gate_free($gate);
        }
    }
}
