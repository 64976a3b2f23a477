"""PHP: bindings/php/generated/, namespace Respite (PSR-4: Respite\\X in X.php).

- RespiteException and one <Status>Exception per status, with the names the
  binding has always had, the fields of respite_error as properties, and
  RespiteException::fromError(), the one constructor the exception typemap
  calls; Problem, the type of the problems field.
- One backed enum per core enumeration (cases in code order, code(),
  fromCode()); an enum may also use a hand-written trait (TRAITS below).
- Tables: status names and codes, every enumeration's names, the settings
  table (with min_exclusive/max_exclusive) and the profiles, as constants.
- Event (a class of readonly properties) and Internal\\Structs (statistics
  and the fleet view as arrays by the core's field names): the core's result
  structs, their fields read from the public headers.
"""
from __future__ import annotations

import math
import re
import textwrap
from typing import Any, Dict, List, Tuple

from tables import HEADER, Enum, Status, Tables, camel, pascal, read_struct, sentence, setting_reads, upper

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


def head(namespace: str = "Respite") -> List[str]:
    return ["<?php", f"// {HEADER}.", "declare(strict_types=1);", "", f"namespace {namespace};", ""]


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


# The result structs read into arrays by Internal\\Structs: struct -> method.
STRUCTS = {
    "respite_gate_stats": "gateStats",
    "respite_queue_stats": "queueStats",
    "respite_engine_stats": "engineStats",
    "respite_sender_stats": "senderStats",
    "respite_fleet_view": "fleetView",
}
# The result structs that are classes of readonly properties (Respite\\<class>).
CLASSES = {"respite_event": "Event", "respite_decision": "Decision"}
# Fields converted from their number: a name of a core table (its enum), a
# 0/1 flag, or -1 for "none": field -> (PHP type, PHP value of {v}).
FLAG = ("bool", "{v} !== 0")
CONVERTED = {
    "type": ("string", "\\Respite\\EventType::fromCode({v})->value"),
    "state": ("string", "\\Respite\\GateState::fromCode({v})->value"),
    "overflow": ("string", "\\Respite\\Overflow::fromCode({v})->value"),
    "unsent": ("?int", "{v} < 0 ? null : {v}"),
    "allowed": FLAG, "probe": FLAG, "closing": FLAG, "closed_while_paused": FLAG, "closed": FLAG, "paused": FLAG, "connected": FLAG,
    "holds_probe": FLAG,
}
# Fields the binding adds, before a field of the struct (None: at the end):
# struct -> [(name, PHP type, value, doc, before)].
ADDED: Dict[str, List[Tuple[str, str, str, str, Any]]] = {
    "respite_event": [("message", "string", "(string) respite_event_message({s})",
                       "The whole log line, as the core words it (respite_event_message): the same in every "
                       "language (G18).", "source")],
    "respite_queue_stats": [("balanced", "bool", "respite_queue_stats_balanced({s}) === 1",
                             "D9 holds for this snapshot (respite_queue_stats_balanced).", None)],
}
PHP_TYPES = {"int64_t": "int", "int": "int", "double": "float", "text": "string"}


def struct_fields(struct: str, s: str) -> List[Tuple[str, str, str, str]]:
    """(name, PHP type, value read from the SWIG object {s}, doc) of every
    field of a struct, the binding's additions in their places."""
    rows = []
    for field, ctype, comment in read_struct(struct)[1]:
        value = f"{s}->{field}"
        if field in CONVERTED:
            php_type, value = CONVERTED[field][0], CONVERTED[field][1].format(v=value)
            comment += "'s name" if "::fromCode" in value else ""
        elif ctype in STRUCTS:
            php_type, value = "array", f"self::{STRUCTS[ctype]}({value})"
        else:
            php_type = PHP_TYPES[ctype]
            value = f"(string) {value}" if ctype == "text" else value
        comment = comment.replace("INFINITY", "INF")
        if php_type == "bool":
            comment = re.sub(r"\b0\b", "false", re.sub(r"\b1\b", "true", comment))
        rows.append((field, php_type, value, comment))
    for name, php_type, value, doc, before in ADDED.get(struct, []):
        at = next((i for i, row in enumerate(rows) if row[0] == before), len(rows))
        rows.insert(at, (name, php_type, value.format(s=s), doc))
    return rows


# A setting's number type -> how its value reads ({n}: the number); text
# types read as text (tables.setting_reads), and a type missing here stops
# the generator.
SETTING_READS = {"integer": "(int) {n}", "number": "{n}", "boolean": "{n} != 0"}


def setting_reader(tables: Tables) -> List[str]:
    """Structs::setting: a setting's value in raw settings, as its type says."""
    number = "respite_settings_get_number($raw, $name)"
    reads = setting_reads(tables, number, "respite_settings_get_text($raw, $name)", SETTING_READS)
    return [
        "    /** component.setting => its type */",
        "    private const SETTING_TYPES = [",
        *[f"        '{s.component}.{s.name}' => '{s.type}'," for s in tables.settings],
        "    ];",
        "",
        "    /** The value of $component's setting $name in raw settings, as its type says (an unknown name",
        "     * reads as a number, which the core refuses). */",
        "    public static function setting($raw, string $component, string $name): mixed",
        "    {",
        "        return match (self::SETTING_TYPES[$component . '.' . $name] ?? 'number') {",
        *[f"            '{kind}' => {read}," for kind, read in reads.items() if kind != "number"],
        f"            default => {reads['number']},",
        "        };",
        "    }",
        "",
    ]


def emit_structs(tables: Tables) -> str:
    out = head("Respite\\Internal") + [
        "/** @internal the core's result structs (SWIG objects) as PHP values: arrays by the core's field names, Decision */",
        "final class Structs",
        "{",
    ]
    for struct, cls in CLASSES.items():
        if struct == "respite_event":
            continue  # Event reads its struct in its constructor
        values = ", ".join(value for _n, _t, value, _d in struct_fields(struct, "$s"))
        out += [f"    public static function {camel(struct[len('respite_'):])}(\\{struct} $s): \\Respite\\{cls}", "    {",
                f"        return new \\Respite\\{cls}({values});", "    }", ""]
    for struct, method in STRUCTS.items():
        summary = read_struct(struct)[0]
        out += [f"    /** @return array<string, mixed> {struct}" + (f": {summary}" if summary else "") + " */",
                f"    public static function {method}(\\{struct} $s): array", "    {", "        return ["]
        out += [f"            '{name}' => {value}," for name, _t, value, _d in struct_fields(struct, "$s")]
        out += ["        ];", "    }", ""]
    out += setting_reader(tables)
    out[-1:] = ["}", ""]
    return "\n".join(out)


def emit_event() -> str:
    """Respite\\Event: respite_event's fields as readonly properties (camelCase)."""
    fields = struct_fields("respite_event", "$raw")
    out = head() + [
        "/** " + sentence(read_struct("respite_event")[0]) + " */",
        "final class Event",
        "{",
    ]
    for name, php_type, _value, doc in fields:
        out += [f"    /** {doc} */"] if doc else []
        out.append(f"    public readonly {php_type} ${camel(name)};")
    out += [
        "    private bool $warning;",
        "",
        "    /** @internal a copy of the raw struct (which the next event overwrites) */",
        "    public function __construct(\\respite_event $raw)",
        "    {",
        *[f"        $this->{camel(name)} = {value};" for name, _t, value, _d in fields],
        "        $this->warning = respite_event_is_warning($raw->type) === 1;",
        "    }",
        "",
        "    /** A warning when sending pauses or a pause grows; information otherwise. */",
        "    public function isWarning(): bool",
        "    {",
        "        return $this->warning;",
        "    }",
        "",
        "    /** One log line: the core's words, the same in every language. */",
        "    public function describe(): string",
        "    {",
        "        return $this->message;",
        "    }",
        "",
        "    /** @return array<string, mixed> the figures, for a logger's context */",
        "    public function toArray(): array",
        "    {",
        "        return [",
        *[f"            '{name}' => $this->{camel(name)}," for name, _t, _v, _d in fields],
        "        ];",
        "    }",
        "}",
        "",
    ]
    return "\n".join(out)


def emit_value_class(struct: str, cls: str) -> str:
    """A result struct as a class of readonly properties set by its constructor."""
    out = head() + ["/** " + sentence(read_struct(struct)[0]) + f" ({struct}) */", f"final class {cls}", "{",
                    "    public function __construct("]
    for name, php_type, _value, doc in struct_fields(struct, "$s"):
        out += [f"        /** {doc} */"] if doc else []
        out.append(f"        public readonly {php_type} ${camel(name)},")
    out += ["    ) {", "    }", "}", ""]
    return "\n".join(out)


def emit(tables: Tables) -> Dict[str, str]:
    files = {"RespiteException.php": emit_root(tables), "Tables.php": emit_tables(tables), "Problem.php": emit_problem(),
             "Event.php": emit_event(), "Decision.php": emit_value_class("respite_decision", "Decision"),
             "Internal/Structs.php": emit_structs(tables)}
    for s in tables.errors:
        files[class_name(s.name) + ".php"] = emit_exception(s)
    for e in tables.enums:
        files[e.type_name + ".php"] = emit_enum(e, tables)
    return files
