<?php
declare(strict_types=1);

namespace Respite;

/**
 * Metrics (spec section 12): gates, queues and senders as the core renders them, OpenMetrics
 * text for a Prometheus scrape. Every metric's name, type, unit, help and labels come from
 * the core. A metrics endpoint is one line: `Metrics::respond($gate, $sender);`.
 */
final class Metrics
{
    /** The Content-Type of render()'s text (M1), as the core gives it. */
    public static function contentType(): string
    {
        return respite_metrics_content_type();
    }

    /** The handles as they are now, as OpenMetrics text ending "# EOF\n". */
    public static function render(Gate|Queue|Sender ...$handles): string
    {
        return self::renderWithPrefix('', ...$handles);
    }

    /** As render(), the metric names starting with $prefix instead of "respite". */
    public static function renderWithPrefix(string $prefix, Gate|Queue|Sender ...$handles): string
    {
        return self::withSnapshot($prefix, $handles, static fn ($metrics) => respite_metrics_render($metrics));
    }

    /**
     * The samples of the handles now, family by family (M6).
     * @return list<array{family: string, name: string, type: string, unit: string, help: string,
     *     labels: array<string, string>, value: float}>
     */
    public static function samples(Gate|Queue|Sender ...$handles): array
    {
        return self::withSnapshot('', $handles, static function ($metrics): array {
            $raw = new \respite_metric_sample();
            $out = [];
            for ($i = 0, $n = respite_metrics_sample_count($metrics); $i < $n; $i++) {
                respite_metrics_sample($metrics, $i, $raw);
                $labels = [$raw->handle_label => $raw->handle];
                if ($raw->label !== '') {
                    $labels[$raw->label] = $raw->label_value;
                }
                $out[] = ['family' => $raw->family, 'name' => $raw->name, 'type' => $raw->type, 'unit' => $raw->unit,
                          'help' => $raw->help, 'labels' => $labels, 'value' => $raw->value];
            }
            return $out;
        });
    }

    /** A metrics endpoint's answer: the Content-Type header, then the text. */
    public static function respond(Gate|Queue|Sender ...$handles): void
    {
        $text = self::render(...$handles); // before the header: an error is not sent as metrics
        header('Content-Type: ' . self::contentType());
        echo $text;
    }

    /**
     * @param list<Gate|Queue|Sender> $handles
     * @template T
     * @param callable(mixed): T $use
     * @return T
     */
    private static function withSnapshot(string $prefix, array $handles, callable $use): mixed
    {
        $metrics = respite_metrics_new($prefix);
        try {
            foreach ($handles as $handle) {
                match (true) {
                    $handle instanceof Gate => respite_metrics_add_gate($metrics, $handle->raw()),
                    $handle instanceof Queue => respite_metrics_add_queue($metrics, $handle->raw()),
                    $handle instanceof Sender => respite_metrics_add_sender($metrics, $handle->raw()),
                };
            }
            return $use($metrics);
        } finally {
            respite_metrics_free($metrics);
        }
    }
}
