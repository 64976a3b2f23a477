"""PHP: bindings/php/generated/, namespace Respite (PSR-4: Respite\\X in X.php).

- RespiteException and one <Status>Exception per status, with the names the
  binding has always had, the fields of respite_error as properties, and
  RespiteException::fromError(), the one constructor the exception typemap
  calls; Problem, the type of the problems field.
- One backed enum per core enumeration (cases in code order, code(),
  fromCode()); an enum may also use a hand-written trait (TRAITS below).
- Tables: status names and codes, every enumeration's names, the settings
  table (with min_exclusive/max_exclusive) and the profiles, as constants.
"""
from __future__ import annotations

import math
import textwrap
from typing import Any, Dict, List

from tables import HEADER, Enum, Status, Tables, pascal, sentence, upper

DIRECTORY = "bindings/php/generated"

# Hand-written behaviour an enum has beyond the table's (calls into the
# core); the PHP binding's owner keeps this list.
TRAITS: Dict[str, str] = {"Outcome": "\\Respite\\Internal\\OutcomeBehaviour"}

# PHP type, constructor default, getter, doc of each exception field.
FIELDS = {
    "setting": ("string", "setting", "''", "getSetting",
                "The setting's name as the spec writes it, e.g. \"failures_to_enter_recovery\"."),
    "retry_after": ("float", "retryAfter", "NAN", "getRetryAfter",
                    "Seconds until a call may be admitted; INF when only a reset recovers."),
    "problems": ("array", "problems", "[]", "getProblems",
                 "Every problem of the policy (list of Problem), in document order."),
}

# Members the binding sets after the core made the exception
# (tables.ATTACHED_FIELDS): name, getter, setter, doc.
ATTACHED = {
    "result": ("result", "getResult", "withResult",
               "The last value the retried call returned when the retry helper gave up on it (spec B20); null when "
               "its last attempt threw (then getPrevious()) or the error is not a give-up."),
}


def class_name(status: str) -> str:
    return pascal(status) + "Exception"


def php(value: Any) -> str:
    """A PHP literal for a table value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "INF" if value > 0 else "-INF"
        return repr(value).upper() if "e" in repr(value) else repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(php(v) for v in value) + "]"
    text = str(value)
    if "\n" in text:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("\n", "\\n") + '"'
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def head() -> List[str]:
    return ["<?php", f"// {HEADER}.", "declare(strict_types=1);", "", "namespace Respite;", ""]


def emit_root(tables: Tables) -> str:
    out = head() + [
        "/**",
        " * Root of every error respite throws. The message is the core's, word for",
        " * word, so every language says the same; getStatus() is the core's stable",
        " * status name (\"invalid_setting\", \"closed\", ...) and getCode() its number.",
        " */",
        "class RespiteException extends \\RuntimeException",
        "{",
        "    /** The core's status name this class stands for. */",
        "    public const STATUS = 'internal';",
        "",
        "    private string $status;",
        "",
        "    public function __construct(string $message, ?string $status = null, ?\\Throwable $previous = null)",
        "    {",
        "        $this->status = $status ?? static::STATUS;",
        "        parent::__construct($message, Tables::STATUS_CODES[$this->status] ?? Tables::STATUS_CODES['internal'], "
        "$previous);",
        "    }",
        "",
        "    /** The core's status name (\"invalid_setting\", \"temporarily_unavailable\", ...). */",
        "    public function getStatus(): string",
        "    {",
        "        return $this->status;",
        "    }",
        "",
        "    /**",
        "     * The exception for a respite_error's fields (status code, message, setting,",
        "     * retry_after) and a policy's problems; each class takes the fields it carries.",
        "     * @param list<Problem> $problems",
        "     */",
        "    public static function fromError(",
        "        int $status,",
        "        string $message,",
        "        string $setting = '',",
        "        float $retryAfter = NAN,",
        "        array $problems = [],",
        "    ): self {",
        "        return match ($status) {",
    ]
    for s in tables.errors:
        args = ", ".join(["$message"] + ["$" + FIELDS[f][1] for f in s.fields])
        out.append(f"            {s.code} => new {class_name(s.name)}({args}),")
    out += [
        "            default => new self($message, 'unknown'),",
        "        };",
        "    }",
        "}",
        "",
    ]
    return "\n".join(out)


def emit_exception(status: Status) -> str:
    name = class_name(status.name)
    out = head() + [
        f"/** {sentence(status.description)} (status \"{status.name}\") */",
        f"class {name} extends RespiteException",
        "{",
        f"    public const STATUS = '{status.name}';",
    ]
    out += [f"    private mixed ${ATTACHED[f][0]} = null;" for f in status.attached]
    fields = [FIELDS[f] for f in status.fields]
    if fields:
        params = ", ".join(f"{t} ${n} = {d}" for t, n, d, _g, _doc in fields)
        out += [""]
        out += [f"    private {t} ${n};" for t, n, _d, _g, _doc in fields]
        out += ["", f"    public function __construct(string $message, {params}, ?\\Throwable $previous = null)", "    {",
                "        parent::__construct($message, self::STATUS, $previous);"]
        out += [f"        $this->{n} = ${n};" for _t, n, _d, _g, _doc in fields]
        out.append("    }")
        for t, n, _d, getter, text in fields:
            out += ["", f"    /** {text} */", f"    public function {getter}(): {t}", "    {",
                    f"        return $this->{n};", "    }"]
    for n, getter, setter, text in (ATTACHED[f] for f in status.attached):
        out += ["", "    /**", *[f"     * {line}" for line in textwrap.wrap(text, 100)], "     */",
                f"    public function {getter}(): mixed",
                "    {", f"        return $this->{n};", "    }", "",
                "    /** @internal set by the binding (Backoff::run) on the error it throws */",
                f"    public function {setter}(mixed $value): static", "    {", f"        $this->{n} = $value;",
                "        return $this;", "    }"]
    out += ["}", ""]
    return "\n".join(out)


def emit_problem() -> str:
    """The type of InvalidPolicyException's problems (a field of the status table)."""
    return "\n".join(head() + [
        "/** One problem of a delivery policy: where (a JSON pointer) and what. */",
        "final class Problem",
        "{",
        "    public function __construct(",
        "        /** \"\" for the whole document, \"/error_handlers/0/on\", ... */",
        "        public readonly string $pointer,",
        "        public readonly string $message,",
        "        /** For a syntax error, where the parser stopped; 0 otherwise. */",
        "        public readonly int $line = 0,",
        "        public readonly int $column = 0,",
        "    ) {",
        "    }",
        "",
        "    public function __toString(): string",
        "    {",
        "        return $this->pointer === '' ? $this->message : $this->pointer . ': ' . $this->message;",
        "    }",
        "}",
        "",
    ])


def emit_enum(e: Enum, tables: Tables) -> str:
    out = head() + [f"/** {sentence(e.doc)} The values are the core's names. */", f"enum {e.type_name}: string", "{"]
    if e.type_name in TRAITS:
        out += [f"    use {TRAITS[e.type_name]};", ""]
    out += [f"    case {pascal(n)} = '{n}';" for n in e.names]
    out += [
        "",
        "    /** The core's number for this value. */",
        "    public function code(): int",
        "    {",
        "        return match ($this) {",
        *[f"            self::{pascal(n)} => {i}," for i, n in enumerate(e.names)],
        "        };",
        "    }",
        "",
        "    /** The value of a core number; \\ValueError for a number that is not one. */",
        "    public static function fromCode(int $code): self",
        "    {",
        "        return match ($code) {",
        *[f"            {i} => self::{pascal(n)}," for i, n in enumerate(e.names)],
        f"            default => throw new \\ValueError(\"not a code of {e.type_name}: $code\"),",
        "        };",
        "    }",
    ]
    if e.key == "outcomes":
        counted = [n for n, c in tables.outcome_counts.items() if c]
        out += [
            "",
            "    /** Whether this outcome counts against the service (without count_all_failures). */",
            "    public function counts(): bool",
            "    {",
            "        return match ($this) {",
            "            " + ", ".join(f"self::{pascal(n)}" for n in counted) + " => true,",
            "            default => false,",
            "        };",
            "    }",
        ]
    out += ["}", ""]
    return "\n".join(out)


def emit_tables(tables: Tables) -> str:
    out = head() + [
        "/** The core's tables: statuses, enumerations, settings and profiles. */",
        "final class Tables",
        "{",
        "    /** Status names in code order (0 is \"ok\"). */",
        "    public const STATUS_NAMES = " + php([s.name for s in tables.statuses]) + ";",
        "",
        "    /** Status name => code. */",
        "    public const STATUS_CODES = [",
        *[f"        '{s.name}' => {s.code}," for s in tables.statuses],
        "    ];",
    ]
    for e in tables.enums:
        out += ["", f"    /** {sentence(e.doc)} Names in code order. */",
                f"    public const {upper(e.key)} = {php(list(e.names))};"]
    out += [
        "",
        "    /** Event types logged as warnings (respite_event_is_warning). */",
        "    public const WARNING_EVENT_TYPES = " + php([n for n, w in tables.warning_events.items() if w]) + ";",
        "",
        "    /** The components that have settings. */",
        "    public const COMPONENTS = " + php(tables.components) + ";",
        "",
        "    /**",
        "     * Every setting of every component in the core's order; min/max are null",
        "     * for non-numeric settings, choices null unless a choice.",
        "     */",
        "    public const SETTINGS = [",
    ]
    for s in tables.settings:
        default = float(s.default) if s.type == "number" else s.default
        bounded = s.type in ("integer", "number")
        cast = (lambda v: float(v)) if s.type == "number" else (lambda v: int(v))
        row = [
            ("component", s.component), ("name", s.name), ("type", s.type), ("default", default),
            ("min", cast(s.min) if bounded else None), ("max", cast(s.max) if bounded else None),
            ("min_exclusive", s.min_exclusive), ("max_exclusive", s.max_exclusive),
            ("choices", list(s.choices) if s.choices is not None else None),
            ("accepted", s.accepted), ("doc", s.doc),
        ]
        out.append("        [" + ", ".join(f"'{k}' => {php(v)}" for k, v in row) + "],")
    out += ["    ];", "", "    /** Profile name => [component, settings it changes from the component's defaults]. */",
            "    public const PROFILES = ["]
    for p in tables.profiles:
        overrides = ", ".join(f"'{k}' => {php(v)}" for k, v in tables.profile_overrides(p).items())
        out.append(f"        '{p.name}' => ['component' => '{p.component}', 'overrides' => [{overrides}]],")
    out += ["    ];", "}", ""]
    return "\n".join(out)


def emit(tables: Tables) -> Dict[str, str]:
    files = {"RespiteException.php": emit_root(tables), "Tables.php": emit_tables(tables), "Problem.php": emit_problem()}
    for s in tables.errors:
        files[class_name(s.name) + ".php"] = emit_exception(s)
    for e in tables.enums:
        files[e.type_name + ".php"] = emit_enum(e, tables)
    return files
