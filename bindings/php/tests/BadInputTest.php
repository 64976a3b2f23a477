<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Gate;
use Respite\InvalidPolicyException;
use Respite\InvalidSettingException;
use Respite\Outcome;
use Respite\Policy;

/**
 * Issue 14 item 16 (spec E16): bad input reaches the core as given, or is
 * refused by type, never converted silently. The conformance scenarios under
 * * /bad-input compare what every language can express; these are PHP's own.
 */
final class BadInputTest extends TestCase
{
    public function testAStatusBeyondCIntIsAValueErrorNeverWrapped(): void
    {
        $gate = new Gate();
        foreach ([PHP_INT_MAX, PHP_INT_MIN, 2 ** 31] as $status) {
            try {
                $gate->reportStatus($status, now: 1.0);
                $this->fail("status $status was accepted");
            } catch (\ValueError $e) {
                $this->assertStringNotContainsString('(got -1)', $e->getMessage());
            }
        }
        $this->assertSame(0, $gate->stats()['reported']);
        $this->expectException(\ValueError::class);
        Outcome::classify(PHP_INT_MAX);
    }

    public function testAGateFromAnotherComponentsSettingsIsTheCoresError(): void
    {
        try {
            Gate::profile('backoff');
            $this->fail('a gate was made from backoff settings');
        } catch (InvalidSettingException $e) {
            $this->assertSame('settings must be gate settings (got backoff settings)', $e->getMessage());
        }
    }

    public function testNullIsNoTextNotTheDefault(): void
    {
        try {
            new Gate(['recovery_seconds' => null]);
            $this->fail('a null setting was accepted');
        } catch (InvalidSettingException $e) {
            $this->assertSame('recovery_seconds', $e->getSetting());
            $this->assertStringEndsWith('(got nothing (NULL))', $e->getMessage());
        }
        $this->assertSame('', (new Gate())->name(), 'no name given is still the default');
    }

    public function testBytesThatAreNotUtf8AreP4(): void
    {
        try {
            Policy::fromJson("{\"name\": \"\xff\"}");
            $this->fail('accepted');
        } catch (InvalidPolicyException $e) {
            $this->assertCount(1, $e->getProblems());
            $this->assertStringStartsWith('invalid JSON at line 1, column ', $e->getMessage());
            $this->assertStringContainsString('the text is not valid UTF-8', $e->getMessage());
        }
    }
}
