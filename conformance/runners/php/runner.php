<?php
/*
 * The PHP conformance runner: reads scenario files and drives respite's
 * public PHP API (the Respite\ classes, not the raw functions) step by
 * step, printing one JSON line per scenario: {"id", "steps": [...]} or
 * {"id", "error"}. It compares nothing; conformance/run does (see
 * conformance/README.md).
 *
 * usage: php -d extension=respite.so runner.php SCENARIOS_DIR [FILE...]
 */
declare(strict_types=1);

require __DIR__ . '/../../../bindings/php/autoload.php';
require __DIR__ . '/components.php';

use Respite\Conformance\ArgumentError;
use Respite\Conformance\OpenFailure;
use Respite\Conformance\Observe;
use Respite\RespiteException;

const STEP_MODIFIERS = ['at', 'repeat', 'expect', 'comment'];

function run_step(object $component, $step, float &$now)
{
    if (!is_array($step)) {
        return Observe::runnerError('a step is an object');
    }
    $actions = array_values(array_diff(array_keys($step), STEP_MODIFIERS));
    if (count($actions) !== 1) {
        return Observe::runnerError($actions === [] ? 'a step needs an action'
            : "a step has one action (got '{$actions[0]}' and '{$actions[1]}')");
    }
    $action = $actions[0];
    if (isset($step['at'])) {
        // "nan", "inf", "-inf" stand for the doubles JSON cannot write
        $at = $step['at'];
        $now = match ($at) {
            'nan' => NAN, 'inf' => INF, '-inf' => -INF,
            default => (float) $at,
        };
    }
    $repeat = is_int($step['repeat'] ?? null) ? $step['repeat'] : 1;
    $observed = null;
    for ($i = 0; $i < $repeat; $i++) {
        try {
            $observed = $component->step($action, $step[$action], $now);
        } catch (RespiteException $e) {
            $observed = Observe::error($e);
        } catch (ArgumentError $e) {
            $observed = Observe::argumentError($e->getMessage());
        } catch (\Throwable $e) {
            $observed = Observe::runnerError(get_class($e) . ': ' . $e->getMessage());
        }
        if (is_array($observed) && isset($observed['error'])) {
            break;
        }
    }
    return $observed;
}

function run_scenario(array $scenario): array
{
    $result = ['id' => $scenario['id'] ?? null];
    $class = \Respite\Conformance\COMPONENTS[$scenario['component'] ?? ''] ?? null;
    $steps = $scenario['steps'] ?? null;
    if ($class === null || !is_array($steps)) {
        $result['error'] = $class === null ? 'unknown component' : 'no steps';
        return $result;
    }
    try {
        $component = new $class($scenario);
    } catch (OpenFailure $e) {
        $result['error'] = $e->getMessage();
        return $result;
    } catch (RespiteException $e) {
        $result['error'] = Observe::error($e);
        return $result;
    } catch (ArgumentError $e) {
        $result['error'] = Observe::argumentError($e->getMessage());
        return $result;
    }
    $now = 0.0;
    $observed = [];
    try {
        foreach ($steps as $step) {
            $observed[] = run_step($component, $step, $now);
        }
    } finally {
        $component->close();
    }
    $result['steps'] = $observed;
    return $result;
}

function scenario_files(string $root): array
{
    $found = [];
    $it = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($root, FilesystemIterator::SKIP_DOTS));
    foreach ($it as $file) {
        $name = $file->getFilename();
        if (str_ends_with($name, '.json') && $name[0] !== '.') {
            $found[] = substr($file->getPathname(), strlen(rtrim($root, '/')) + 1);
        }
    }
    sort($found, SORT_STRING);
    return $found;
}

function main(array $argv): int
{
    if (count($argv) < 2) {
        fwrite(STDERR, "usage: {$argv[0]} SCENARIOS_DIR [FILE...]\n");
        return 2;
    }
    $root = $argv[1];
    $files = array_slice($argv, 2) ?: scenario_files($root);
    $status = 0;
    foreach ($files as $relative) {
        $text = @file_get_contents("$root/$relative");
        try {
            if ($text === false) {
                throw new \JsonException('cannot read the file');
            }
            // objects stay objects so that {} and [] keep their meaning
            $scenario = json_decode($text, false, 512, JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            echo json_encode(['file' => $relative, 'error' => $e->getMessage()]), "\n";
            $status = 2;
            continue;
        }
        $result = run_scenario(Observe::toArrays($scenario));
        echo Observe::encode($result), "\n";
    }
    return $status;
}

exit(main($argv));
