<?php
/*
 * The PHP conformance runner: reads normalised scenarios on stdin (one JSON
 * line each, written by conformance/run) and drives respite's public PHP
 * API (the Respite\ classes, not the raw functions) step by step, printing
 * one JSON line per scenario: {"id", "steps": [...]} or {"id", "error":
 * {...}}. It compares nothing; conformance/run does (see
 * conformance/README.md).
 */
declare(strict_types=1);

require __DIR__ . '/../../../bindings/php/autoload.php';
require __DIR__ . '/components.php';

use Respite\Conformance\Observe;
use Respite\RespiteException;

function run_step(object $component, array $step)
{
    $action = array_values(array_diff(array_keys($step), ['at', 'repeat', 'handle']))[0];
    $observed = null;
    if (array_key_exists('handle', $step)) {
        if (!method_exists($component, 'useHandle')) {
            return Observe::runnerError('the ' . get_class($component) . ' has one handle');
        }
        try {
            $component->useHandle($step['handle']);
        } catch (\Throwable $e) {
            return Observe::error($e);
        }
    }
    for ($i = 0; $i < $step['repeat']; $i++) {
        try {
            $observed = $component->step($action, $step[$action], \Respite\Conformance\number_of($step['at']));
        } catch (\Throwable $e) { // never dies: the step observes what went wrong
            $observed = Observe::error($e);
        }
        if (is_array($observed) && isset($observed['error'])) {
            break;
        }
    }
    return $observed;
}

function run_scenario(array $scenario): array
{
    $result = ['id' => $scenario['id']];
    try {
        $class = \Respite\Conformance\COMPONENTS[$scenario['component']] ?? null;
        if ($class === null) {
            throw new \RuntimeException("unknown component '{$scenario['component']}'");
        }
        $component = new $class($scenario);
    } catch (\Throwable $e) {
        $result['error'] = Observe::error($e)['error'];
        return $result;
    }
    $result['steps'] = array_map(static fn ($step) => run_step($component, $step), $scenario['steps']);
    try {
        $component->close();
    } catch (\Throwable) {
        // closing a handle the scenario closed is not an observation
    }
    return $result;
}

while (($line = fgets(STDIN)) !== false) {
    // objects stay objects so that {} and [] keep their meaning
    echo Observe::encode(run_scenario(Observe::toArrays(json_decode($line, false, 512, JSON_THROW_ON_ERROR)))), "\n";
}
