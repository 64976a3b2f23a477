<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\ClosedException;
use Respite\Gate;
use Respite\Internal\Errors;
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
            $this->assertTrue(class_exists($class), "$class for status $status (run tools/generate-exceptions.php)");
            $this->assertTrue(is_subclass_of($class, RespiteException::class));
            $this->assertSame($status, $class::STATUS);
            $error = Errors::make($status, 'some message');
            $this->assertInstanceOf($class, $error);
            $this->assertSame($code, $error->getCode());
            $this->assertSame($status, $error->getStatus());
            $this->assertSame('some message', $error->getMessage());
            $seen[] = basename($class);
        }
        $this->assertCount(respite_status_count() - 1, array_unique($seen));
        // and no class for a status the core does not have
        foreach (glob(__DIR__ . '/../src/*Exception.php') as $file) {
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

    public function testTranslateKeepsTheCoresMessage(): void
    {
        [$status, $message] = raw_error(fn () => respite_gate_admit(null, 1.0));
        $this->assertSame('closed', $status);
        $error = Errors::translate(new \Exception("$status: $message", -3));
        $this->assertInstanceOf(ClosedException::class, $error);
        $this->assertSame('gate is closed', $error->getMessage());
    }

    public function testTranslateLeavesOtherThrowablesAlone(): void
    {
        $e = new \LogicException('closed: not ours');
        $this->assertSame($e, Errors::translate($e));
        $e = new \Exception('no status here', -3);
        $this->assertSame($e, Errors::translate($e));
    }

    public function testUnknownStatusGivesTheRootClass(): void
    {
        $error = Errors::make('something_new', 'm');
        $this->assertSame(RespiteException::class, get_class($error));
        $this->assertSame('something_new', $error->getStatus());
    }

    public function testInvalidSettingNamesTheSetting(): void
    {
        $raw = respite_settings_new('gate');
        [, $expected] = raw_error(fn () => respite_settings_set_integer($raw, 'probes', -4));
        respite_settings_free($raw);
        try {
            new Gate(['probes' => -4]);
            $this->fail('no exception');
        } catch (InvalidSettingException $e) {
            $this->assertSame($expected, $e->getMessage());
            $this->assertSame('probes', $e->getSetting());
            $this->assertStringStartsWith('probes ', $e->getMessage());
        }
    }

    public function testRefusalCarriesRetryAfterAndTheCoresWords(): void
    {
        $e = Errors::refusal(12.5);
        $this->assertInstanceOf(TemporarilyUnavailableException::class, $e);
        $this->assertSame(12.5, $e->getRetryAfter());
        $this->assertSame(respite_refusal_message(12.5), $e->getMessage());
        $this->assertStringContainsString('recovery resumes in 12.5s', $e->getMessage());
        $this->assertStringContainsString('only after a reset', Errors::refusal(INF)->getMessage());
    }

    public function testGeneratedFilesAreCurrent(): void
    {
        for ($code = 1; $code < respite_status_count(); $code++) {
            $status = respite_status_name($code);
            if (in_array($status, ['invalid_setting', 'temporarily_unavailable', 'invalid_policy', 'transport'], true)) {
                continue;
            }
            $class = str_replace(' ', '', ucwords(str_replace('_', ' ', $status))) . 'Exception';
            $source = file_get_contents(__DIR__ . "/../src/$class.php");
            $this->assertStringContainsString(ucfirst(respite_strerror($code)) . '.', $source, $class);
        }
    }
}
