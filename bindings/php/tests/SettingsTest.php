<?php
declare(strict_types=1);

namespace Respite\Tests;

use PHPUnit\Framework\TestCase;
use Respite\Backoff;
use Respite\Gate;
use Respite\InvalidSettingException;
use Respite\Settings;

final class SettingsTest extends TestCase
{
    public function testSettingsByTheSpecsNames(): void
    {
        $gate = new Gate(['failures_to_enter_recovery' => 5, 'recovery_seconds' => 2.5, 'recover_never' => true]);
        $s = $gate->settings();
        $this->assertSame(5, $s['failures_to_enter_recovery']);
        $this->assertSame(2.5, $s['recovery_seconds']);
        $this->assertTrue($s['recover_never']);
    }

    public function testDefaultsComeFromTheCoresTable(): void
    {
        $gate = new Gate();
        foreach (Settings::table('gate') as $row) {
            $this->assertEquals($row['default'], $gate->settings()[$row['name']], $row['name']);
        }
    }

    public function testProfiles(): void
    {
        $usage = Gate::profile('usage_sharing', ['probes' => 2]);
        $this->assertSame(2, $usage->settings()['probes']);
        $cloud = new Gate([], 'cloud_request');
        $this->assertNotEquals($usage->settings(), $cloud->settings());
        $raw = respite_settings_new('usage_sharing');
        $this->assertSame(
            (int) respite_settings_get_number($raw, 'failures_to_enter_recovery'),
            $usage->settings()['failures_to_enter_recovery'],
        );
        respite_settings_free($raw);
    }

    public function testUnknownProfileIsTheCoresError(): void
    {
        [, $expected] = raw_error(fn () => respite_settings_new('nope'));
        try {
            Gate::profile('nope');
            $this->fail('no exception');
        } catch (InvalidSettingException $e) {
            $this->assertSame($expected, $e->getMessage());
        }
    }

    /** Every bound of every numeric gate/backoff setting: just outside is refused with the core's words. */
    public function testOutOfRangeIsRefusedNeverClamped(): void
    {
        foreach (['gate' => fn ($s) => new Gate($s), 'backoff' => fn ($s) => new Backoff($s)] as $component => $make) {
            foreach (Settings::table($component) as $row) {
                if ($row['type'] !== 'integer') {
                    continue;
                }
                $below = (int) $row['min'] - 1;
                try {
                    $make([$row['name'] => $below]);
                    $this->fail("{$row['name']} = $below accepted");
                } catch (InvalidSettingException $e) {
                    $this->assertSame($row['name'], $e->getSetting());
                    $this->assertStringContainsString($row['accepted'], $e->getMessage());
                    $this->assertStringContainsString("(got $below)", $e->getMessage());
                }
            }
        }
    }

    /** An exclusive bound is shown as such, and the bound itself is refused (failures_window_seconds > 0). */
    public function testExclusiveBoundsAreShownAndRefused(): void
    {
        $exclusive = array_filter(Settings::table('gate'), fn ($row) => $row['min_exclusive']);
        $this->assertNotEmpty($exclusive);
        foreach ($exclusive as $row) {
            try {
                new Gate([$row['name'] => $row['min']]);
                $this->fail("{$row['name']} = {$row['min']} accepted");
            } catch (InvalidSettingException $e) {
                $this->assertSame($row['name'], $e->getSetting());
                $this->assertStringContainsString('greater than', $row['accepted']);
            }
        }
        $this->assertContains('failures_window_seconds', array_column($exclusive, 'name'));
        $this->assertSame(Settings::get('gate', 'failures_window_seconds'), 100.0);
    }

    public function testUnknownSettingListsTheAcceptedNames(): void
    {
        try {
            new Gate(['failures' => 3]);
            $this->fail('no exception');
        } catch (InvalidSettingException $e) {
            $this->assertSame('failures', $e->getSetting());
            $this->assertStringContainsString('failures_to_enter_recovery', $e->getMessage());
        }
    }

    public function testRulesBetweenSettings(): void
    {
        $this->expectException(InvalidSettingException::class);
        new Gate(['recovery_seconds' => 100, 'max_recovery_seconds' => 10, 'recovery_multiplier' => 2]);
    }

    public function testListsAndWrongTypes(): void
    {
        $backoff = new Backoff(['retry_on' => ['transport', 503]]);
        $this->assertSame('transport,503', str_replace(' ', '', $backoff->settings()['retry_on']));
        $this->assertTrue($backoff->retriesOn('server_error', 503));
        $this->expectException(\TypeError::class);
        new Gate(['probes' => new \stdClass()]);
    }

    public function testNullIsRefusedByTheCore(): void
    {
        // Item 16: null is no text to the core (E3), not the default.
        try {
            new Gate(['probes' => null]);
            $this->fail('a null setting was accepted');
        } catch (InvalidSettingException $e) {
            $this->assertSame('probes', $e->getSetting());
            $this->assertSame('probes must be an integer from 0 to 1000 (got nothing (NULL))', $e->getMessage());
        }
    }

    public function testADefaultReadsAsItsTypeAndAnUnknownNameIsTheCoresError(): void
    {
        $this->assertSame(1, Settings::get('gate', 'probes'));
        $this->assertSame(100.0, Settings::get('gate', 'failures_window_seconds'));
        $this->assertTrue(Settings::get('gate', 'honour_retry_after'));
        $this->assertSame('none', Settings::get('backoff', 'jitter'));
        try {
            Settings::get('gate', 'colour');
            $this->fail('an unknown name was read');
        } catch (InvalidSettingException $e) {
            $this->assertSame('colour', $e->getSetting());
        }
    }
}
