"""Java: package org.respite in the source root bindings/java/generated/.

- RespiteException and one <Status>Exception per status, with the names and
  constructors of the classes they replace, the fields of respite_error as
  fields, RespiteException.fromError(...), and fromNative(...), which the JNI
  exception typemap calls with the fields as UTF-8.
- One enum per core enumeration (code(), wireName(), ofCode()), and Profile.
- SettingInfo (a record) and SettingsTable: the settings table as data.
- <Component>Settings<B>: one interface per component with one typed default
  method per setting (camelCase, Javadoc from the doc line and the accepted
  range), each calling <component>Setting(name, value), which is the
  builder's set(name, value) unless a builder of several components routes it.
- GateStats, QueueStats, EngineStats, SenderStats, FleetView, Event: records
  of the core's result structs, read from the public headers; NativeStats
  converts them.

The directory is a separate source root (added to the build with
build-helper-maven-plugin), so the package stays org.respite.
"""
from __future__ import annotations

import math
import re
import textwrap
from typing import Any, Dict, List

from tables import (HEADER, Enum, Setting, Status, Tables, camel, describe_range, pascal, read_struct, sentence,
                    setting_reads, upper)

DIRECTORY = "bindings/java/generated"
PACKAGE_DIR = "org/respite"

# Enums whose toString() is the core's name: the values of choice settings
# (given to the settings as text) and outcomes.
WIRE_TO_STRING = {"Outcome", "Jitter", "Overflow"}

# Members an enum or record has beyond the table's (hand-written behaviour
# that calls the core); the Java binding's owner keeps them here.
EXTRA_MEMBERS: Dict[str, str] = {
    "Decision": """
    /** {@link #retryAfter()} as a Duration (the longest Duration when infinite, under recover_never). */
    public java.time.Duration retryAfterDuration() {
        return Respite.duration(retryAfter);
    }
""",
    "Outcome": """
    /** The outcome with the spec's name; InvalidArgumentException (the core's message) otherwise. */
    public static Outcome fromName(String name) {
        return ofCode(org.respite.swig.RespiteNative.respite_outcome_from_name(name));
    }

    /** The outcome with the core's number (0-5); InvalidArgumentException (the core's message, O1) otherwise. */
    public static Outcome fromCode(int code) {
        return ofCode(org.respite.swig.RespiteNative.respite_outcome_check(code));
    }

    /** Classifies one call: an HTTP status (100-599) and whether its body could be used. */
    public static Outcome classify(int httpStatus, boolean bodyUsable) {
        return ofCode(org.respite.swig.RespiteNative.respite_classify(0, httpStatus, bodyUsable ? 1 : 0));
    }

    /** Whether this outcome counts against the service (count_all_failures counts every non-success). */
    public boolean counts(boolean countAllFailures) {
        return org.respite.swig.RespiteNative.respite_outcome_counts(code(), countAllFailures ? 1 : 0) == 1;
    }
""",
}

# How each field of an exception is declared, documented and passed; a field
# marked first comes before the message in the constructor (as it always has).
FIELDS = {
    "setting": ("String", "setting", "getSetting",
                "The setting's name as the spec writes it, e.g. {@code \"failures_to_enter_recovery\"}.", True),
    "retry_after": ("double", "retryAfter", "getRetryAfter",
                    "Seconds until a call may be admitted; {@code Double.POSITIVE_INFINITY} until a reset "
                    "(recover_never).", True),
    "problems": ("List<PolicyProblem>", "problems", "getProblems",
                 "Every problem the core found, in document order.", False),
}

# Members a binding sets after the core made the exception (tables.ATTACHED_FIELDS):
# name, getter, package-private setter (for the binding's own classes), doc.
ATTACHED = {
    "result": ("result", "getResult", "withResult",
               "The last value the retried call returned when the retry helper gave up on it (spec B20); null when "
               "its last attempt threw (then the cause) or the error is not a give-up."),
}


def header() -> List[str]:
    return [f"// {HEADER}.", "package org.respite;", ""]


def java_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def javadoc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("*/", "*&#47;")


def doc_comment(text: str, indent: str = "    ") -> List[str]:
    """A Javadoc comment, on one line when it fits, else wrapped."""
    one = f"{indent}/** {text} */"
    if len(one) <= 110:
        return [one]
    lines = textwrap.wrap(text, 106 - len(indent))
    return [f"{indent}/**", *[f"{indent} * {line}" for line in lines], f"{indent} */"]


def class_name(status: str) -> str:
    return pascal(status) + "Exception"


def emit_root(tables: Tables) -> str:
    errors = tables.errors
    out = header() + [
        "import java.util.ArrayList;",
        "import java.util.List;",
        "",
        "import org.respite.internal.Utf8;",
        "import org.respite.swig.RespiteNative;",
        "",
        "/**",
        " * The root of every error respite raises. Each status of the core's status",
        " * table ({@code respite_status_name}) has its own subclass; {@link #getStatus()}",
        " * is that stable name and {@link #getMessage()} is the core's message, word for",
        " * word the same in every language.",
        " */",
        "public class RespiteException extends RuntimeException {",
        "    private static final long serialVersionUID = 1L;",
        "    private final String status;",
        "",
        "    public RespiteException(String status, String message) {",
        "        super(message);",
        "        this.status = status;",
        "    }",
        "",
        "    /** The status's stable name, e.g. {@code \"invalid_setting\"}. */",
        "    public String getStatus() {",
        "        return status;",
        "    }",
        "",
        "    /**",
        "     * Called by the JNI layer (respite_jni.h) with respite_error's fields, its text as UTF-8,",
        "     * and the problems the call reported (a native respite_problems; 0: none).",
        "     */",
        "    static RespiteException fromNative(int status, byte[] message, byte[] setting, double retryAfter,",
        "                                       long problems) {",
        "        List<PolicyProblem> list = new ArrayList<>();",
        "        for (int i = 0; i < RespiteNative.respite_problems_count(problems); i++) {",
        "            list.add(new PolicyProblem(RespiteNative.respite_problems_pointer(problems, i),",
        "                    RespiteNative.respite_problems_message(problems, i),",
        "                    RespiteNative.respite_problems_line(problems, i),",
        "                    RespiteNative.respite_problems_column(problems, i)));",
        "        }",
        "        return fromError(status, Utf8.string(message), Utf8.string(setting), retryAfter, list);",
        "    }",
        "",
        "    /**",
        "     * The exception for a respite_error's fields (status code, message, setting,",
        "     * retry_after) and a policy's problems; each class takes the fields it carries.",
        "     */",
        "    public static RespiteException fromError(int status, String message, String setting, double retryAfter,",
        "                                             List<PolicyProblem> problems) {",
        "        return switch (status) {",
    ]
    for s in errors:
        args = [FIELDS[f][1] for f in s.fields if FIELDS[f][4]] + ["message"] + \
               [FIELDS[f][1] + (" == null ? List.of() : problems" if f == "problems" else "")
                for f in s.fields if not FIELDS[f][4]]
        out.append(f"            case {s.code} -> new {class_name(s.name)}({', '.join(args)});")
    out += [
        "            default -> new RespiteException(\"unknown\", message);",
        "        };",
        "    }",
        "}",
        "",
    ]
    return "\n".join(out)


def emit_exception(status: Status) -> str:
    name = class_name(status.name)
    fields = [FIELDS[f] for f in status.fields]
    params = [f"{t} {n}" for t, n, _g, _d, first in fields if first] + ["String message"] + \
             [f"{t} {n}" for t, n, _g, _d, first in fields if not first]
    out = header()
    if any(t.startswith("List") for t, *_ in fields):
        out += ["import java.util.List;", ""]
    out += [
        f"/** Status {{@code {status.name}}}: {javadoc(status.description)}. */",
        f"public class {name} extends RespiteException {{",
        "    private static final long serialVersionUID = 1L;",
    ]
    out += [f"    private final {t} {n};" for t, n, *_ in fields]
    out += [f"    private transient Object {ATTACHED[f][0]};" for f in status.attached]
    out += ["", f"    public {name}({', '.join(params)}) {{", f"        super({java_string(status.name)}, message);"]
    out += [f"        this.{n} = {'List.copyOf(' + n + ')' if t.startswith('List') else n};" for t, n, *_ in fields]
    out.append("    }")
    for t, n, getter, doc, _first in fields:
        out += ["", f"    /** {doc} */", f"    public {t} {getter}() {{", f"        return {n};", "    }"]
    for n, getter, setter, doc in (ATTACHED[f] for f in status.attached):
        out += ["", *doc_comment(doc), f"    public Object {getter}() {{", f"        return {n};", "    }",
                "", f"    {name} {setter}(Object value) {{", f"        this.{n} = value;", "        return this;", "    }"]
    out += ["}", ""]
    return "\n".join(out)


def emit_enum(e: Enum, extra: str = "") -> str:
    out = header() + [
        f"/** {javadoc(sentence(e.doc))} Constants are in the core's order: {{@link #code()}} is the core's value. */",
        f"public enum {e.type_name} {{",
    ]
    for i, n in enumerate(e.names):
        out.append(f"    /** {{@code \"{n}\"}} */")
        out.append(f"    {upper(n)}({java_string(n)}){',' if i + 1 < len(e.names) else ';'}")
    out += [
        "",
        f"    private static final {e.type_name}[] BY_CODE = values();",
        "    private final String wireName;",
        "",
        f"    {e.type_name}(String wireName) {{",
        "        this.wireName = wireName;",
        "    }",
        "",
        "    /** The core's value. */",
        "    public int code() {",
        "        return ordinal();",
        "    }",
        "",
        "    /** The core's name, e.g. {@code " + java_string(e.names[0]) + "}. */",
        "    public String wireName() {",
        "        return wireName;",
        "    }",
        "",
        "    /** The constant of a core value; IllegalArgumentException for a value that is not one. */",
        f"    public static {e.type_name} ofCode(int code) {{",
        "        if (code < 0 || code >= BY_CODE.length) {",
        f"            throw new IllegalArgumentException(\"not a code of {e.type_name}: \" + code);",
        "        }",
        "        return BY_CODE[code];",
        "    }",
    ]
    if e.type_name in WIRE_TO_STRING:
        out += ["", "    @Override", "    public String toString() {", "        return wireName;", "    }"]
    if extra:
        out.append(extra.rstrip("\n"))
    out += ["}", ""]
    return "\n".join(out)


def emit_profile(tables: Tables) -> str:
    out = header() + ["/** Named sets of defaults for a component (spec section 2). */", "public enum Profile {"]
    for i, p in enumerate(tables.profiles):
        overrides = tables.profile_overrides(p)
        changes = ", ".join(f"{k} {fmt_value(v)}" for k, v in overrides.items()) or "the component's defaults"
        out.append(f"    /** {p.component}: {javadoc(changes)}. */")
        out.append(f"    {upper(p.name)}({java_string(p.name)}, {java_string(p.component)})"
                   f"{',' if i + 1 < len(tables.profiles) else ';'}")
    out += [
        "",
        "    private final String wireName;",
        "    private final String component;",
        "",
        "    Profile(String wireName, String component) {",
        "        this.wireName = wireName;",
        "        this.component = component;",
        "    }",
        "",
        "    /** The core's name, e.g. {@code \"usage_sharing\"}. */",
        "    public String wireName() {",
        "        return wireName;",
        "    }",
        "",
        "    /** The component whose settings it sets, e.g. {@code \"gate\"}. */",
        "    public String component() {",
        "        return component;",
        "    }",
        "}",
        "",
    ]
    return "\n".join(out)


def fmt_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def java_double(value: float) -> str:
    if math.isinf(value):
        return "Double.POSITIVE_INFINITY" if value > 0 else "Double.NEGATIVE_INFINITY"
    text = repr(float(value))
    return text.replace("e+", "E")


def java_default(s: Setting) -> str:
    if s.type == "integer":
        return f"{int(s.default)}L"
    if s.type == "number":
        return java_double(s.default)
    if s.type == "boolean":
        return "Boolean.TRUE" if s.default else "Boolean.FALSE"
    return java_string(s.default)


def emit_setting_info() -> str:
    return "\n".join(header() + [
        "import java.util.List;",
        "",
        "/**",
        " * One row of the core's settings table (respite_setting_at).",
        " *",
        " * @param component    \"gate\", \"backoff\", \"queue\", \"sender\" or \"client\"",
        " * @param name         the spec's name, e.g. \"failures_to_enter_recovery\"",
        " * @param type         \"integer\", \"number\", \"boolean\", \"choice\", \"string\" or \"list\"",
        " * @param defaultValue a Long, Double, Boolean or String, by type",
        " * @param min          integer/number: the lower bound; null otherwise",
        " * @param max          integer/number: the upper bound; null otherwise",
        " * @param minExclusive the value must be greater than min (not equal)",
        " * @param maxExclusive the value must be less than max (not equal)",
        " * @param choices      choice: the accepted words; empty otherwise",
        " * @param accepted     the accepted range as the core's errors say it",
        " * @param doc          one line",
        " */",
        "public record SettingInfo(String component, String name, String type, Object defaultValue, Double min, Double max,",
        "                          boolean minExclusive, boolean maxExclusive, List<String> choices, String accepted,",
        "                          String doc) {}",
        "",
    ])


# A setting's number type -> how its value reads ({n}: the number); text
# types read as text (tables.setting_reads), and a type missing here stops
# the generator.
SETTING_READS = {"integer": "(long) {n}", "number": "{n}", "boolean": "{n} != 0"}


def emit_settings_table(tables: Tables) -> str:
    number = "RespiteNative.respite_settings_get_number(settings, name)"
    reads = setting_reads(tables, number, "RespiteNative.respite_settings_get_text(settings, name)", SETTING_READS)
    out = header() + [
        "import java.util.List;",
        "import java.util.Optional;",
        "",
        "import org.respite.swig.RespiteNative;",
        "",
        "/** The core's settings table, every setting of every component in the core's order. */",
        "public final class SettingsTable {",
        "    private SettingsTable() {}",
        "",
        "    /** Every row. */",
        "    public static final List<SettingInfo> ALL = List.of(",
    ]
    rows = []
    for s in tables.settings:
        bounded = s.type in ("integer", "number")
        choices = "List.of(" + ", ".join(java_string(c) for c in (s.choices or ())) + ")"
        rows.append(
            f"            new SettingInfo({java_string(s.component)}, {java_string(s.name)}, {java_string(s.type)}, "
            f"{java_default(s)}, {java_double(s.min) if bounded else 'null'}, "
            f"{java_double(s.max) if bounded else 'null'}, {'true' if s.min_exclusive else 'false'}, "
            f"{'true' if s.max_exclusive else 'false'}, {choices}, {java_string(s.accepted)}, {java_string(s.doc)})")
    out.append(",\n".join(rows) + ");")
    out += [
        "",
        "    /** The rows of one component, in the core's order. */",
        "    public static List<SettingInfo> of(String component) {",
        "        return ALL.stream().filter(row -> row.component().equals(component)).toList();",
        "    }",
        "",
        "    /** The row for component.name. */",
        "    public static Optional<SettingInfo> find(String component, String name) {",
        "        return ALL.stream().filter(row -> row.component().equals(component) && row.name().equals(name))",
        "                .findFirst();",
        "    }",
        "",
        "    /**",
        "     * The value of component's setting name in native settings, as its type says (a Boolean,",
        "     * Long, Double or String); an unknown name reads as a number, which the core refuses.",
        "     */",
        "    public static Object value(long settings, String component, String name) {",
        "        return switch (find(component, name).map(SettingInfo::type).orElse(\"\")) {",
        *[f"            case {java_string(kind)} -> {read};" for kind, read in reads.items() if kind != "number"],
        f"            default -> {reads['number']}; // number; unknown: the core's error",
        "        };",
        "    }",
        "}",
        "",
    ]
    return "\n".join(out)


def java_type(tables: Tables, s: Setting) -> str:
    if s.type == "integer":
        return "int" if s.max is not None and s.max <= 2**31 - 1 else "long"
    if s.type == "number":
        return "double"
    if s.type == "boolean":
        return "boolean"
    if s.type == "choice":
        e = tables.choice_enum(s)
        return e.type_name if e else "String"
    return "String"


def emit_setters(tables: Tables, component: str) -> str:
    iface = pascal(component) + "Settings"
    setter = f"{component}Setting"
    settings = tables.settings_of(component)
    out = header()
    if any(s.type == "list" for s in settings):
        out += ["import java.util.Arrays;", "import java.util.Collection;", "import java.util.List;", ""]
    out += [
        "/**",
        f" * One typed method per {java_string(component)} setting of the core's table, for a",
        f" * builder: each calls {{@link #{setter}(String, Object)}} with the spec's name; the",
        " * core checks the value when the builder builds.",
        " *",
        " * @param <B> the builder, returned by every method",
        " */",
        f"public interface {iface}<B> {{",
        "    /** Sets a setting by its spec name (SettingsBuilder.set); the core checks it when built. */",
        "    B set(String name, Object value);",
        "",
        f"    /** Sets a {java_string(component)} setting by its spec name; a builder of several components routes it. */",
        f"    default B {setter}(String name, Object value) {{",
        "        return set(name, value);",
        "    }",
    ]
    for s in settings:
        doc = doc_comment(javadoc(sentence(s.doc) + " " + describe_range(s)))
        if s.type == "list":
            out += [
                "", *doc,
                f"    default B {s.camel}(Collection<?> values) {{",
                f"        return {setter}({java_string(s.name)}, List.copyOf(values));",
                "    }",
                "", f"    /** As {{@link #{s.camel}(Collection)}}. */",
                f"    default B {s.camel}(Object... values) {{",
                f"        return {s.camel}(Arrays.asList(values));",
                "    }",
            ]
            continue
        out += [
            "", *doc,
            f"    default B {s.camel}({java_type(tables, s)} value) {{",
            f"        return {setter}({java_string(s.name)}, value);",
            "    }",
        ]
    out += ["}", ""]
    return "\n".join(out)


# The core's result structs as records (fields from the public headers, in
# their order and with their comments) and NativeStats, which converts the
# SWIG objects: struct -> (record, converting method).
STRUCTS = {
    "respite_gate_stats": ("GateStats", "gate"),
    "respite_queue_stats": ("QueueStats", "queue"),
    "respite_engine_stats": ("EngineStats", "engine"),
    "respite_sender_stats": ("SenderStats", "sender"),
    "respite_fleet_view": ("FleetView", "fleet"),
    "respite_event": ("Event", "event"),
    "respite_decision": ("Decision", "decision"),
}
# What a struct is, where its header says nothing above it.
SUMMARIES = {"respite_sender_stats": "A sender's figures (S13): its queue's, its engine's and its gate's, and its own"}
# Summaries that replace the header's, where the record says more than the struct.
OVERRIDES = {"respite_decision": "The answer of {@link Gate#check}: admitted with a permit (maybe a probe), or refused "
                                 "with retry_after",
             "respite_event": "One transition of a gate (G18) or a delivery event, with its time and figures; fields "
                              "that do not apply to the type are 0 / \"\""}
# Fields converted from their number: a constant of a core table, its name, or a 0/1 flag.
CONVERTED = {"state": "GateState", "overflow": "Overflow"}
NAMED = {"type": "EventType"}
FLAGS = {"closing", "closed_while_paused", "closed", "paused", "connected", "holds_probe", "allowed", "probe"}
# Components the binding adds: name, Java type, value, doc, and the field
# they come before (None: at the end).
ADDED = {
    "respite_queue_stats": [("balanced", "boolean", "RespiteNative.respite_queue_stats_balanced(s) == 1",
                             "whether the snapshot satisfies D9 (respite_queue_stats_balanced)", None)],
    "respite_event": [
        ("warning", "boolean", "RespiteNative.respite_event_is_warning(s.getType()) == 1",
         "whether loggers show it as a warning (sending paused or a pause grew)", "source"),
        ("message", "String", "RespiteNative.respite_event_message(s)",
         "the core's line for it (respite_event_message), logged unchanged by every binding (G18)", "source")],
}
C_TYPES = {"int64_t": "long", "int": "int", "double": "double", "text": "String"}


def struct_component(field: str, ctype: str, comment: str):
    """A field's Java type, its value read from the SWIG object {@code s}, and its doc."""
    getter = f"s.get{field[:1].upper()}{field[1:]}()"
    comment = comment.replace("INFINITY", "infinity")
    if field in CONVERTED:
        return CONVERTED[field], f"{CONVERTED[field]}.ofCode({getter})", comment
    if field in NAMED:
        return "String", f"{NAMED[field]}.ofCode({getter}).wireName()", f"{comment}'s name"
    if field in FLAGS:
        return "boolean", f"{getter} != 0", re.sub(r"\b0\b", "false", re.sub(r"\b1\b", "true", comment))
    if ctype in STRUCTS:
        return STRUCTS[ctype][0], f"{STRUCTS[ctype][1]}({getter})", comment or f"the {STRUCTS[ctype][1]}'s figures"
    return C_TYPES[ctype], getter, comment


def struct_components(struct: str):
    """(name, Java type, value, doc) of every component of a struct's record."""
    _summary, fields = read_struct(struct)
    rows = [(camel(f), *struct_component(f, ctype, comment)) for f, ctype, comment in fields]
    for name, java_type, value, doc, before in ADDED.get(struct, []):
        at = next((i for i, row in enumerate(rows) if row[0] == before), len(rows))
        rows.insert(at, (name, java_type, value, doc))
    return rows


def emit_struct_record(struct: str) -> str:
    record, _method = STRUCTS[struct]
    summary = OVERRIDES.get(struct) or read_struct(struct)[0] or SUMMARIES[struct]
    components = struct_components(struct)
    out = header() + ["/**", *[f" * {line}" for line in textwrap.wrap(f"{javadoc(sentence(summary))} ({struct})", 100)],
                      " *"]
    width = max(len(name) for name, *_ in components)
    for name, _type, _value, doc in components:
        lines = textwrap.wrap(javadoc(doc), 100 - width)
        out.append(f" * @param {name.ljust(width)} {lines[0]}")
        out += [f" * {' ' * (width + 7)} {line}" for line in lines[1:]]
    out.append(" */")
    # One component per wrap unit, so a type stays with its name.
    params = [f"{java_type} {name}" for name, java_type, _v, _d in components]
    indent = " " * (len(record) + 15)
    lines, line = [], f"public record {record}("
    extra = EXTRA_MEMBERS.get(record)
    for i, param in enumerate(params):
        piece = param + (", " if i + 1 < len(params) else ") {" if extra else ") {}")
        if len(line) + len(piece.rstrip()) > 115:
            lines.append(line.rstrip())
            line = indent
        line += piece
    out += lines + [line] + ([extra.strip("\n"), "}"] if extra else []) + [""]
    return "\n".join(out)


def emit_native_stats() -> str:
    out = header() + ["import org.respite.swig.RespiteNative;"]
    out += [f"import org.respite.swig.{struct};" for struct in sorted(STRUCTS)]
    out += ["", "/** The core's result structs (SWIG objects) as records: one conversion each. */",
            "final class NativeStats {", "    private NativeStats() {}"]
    for struct, (record, method) in STRUCTS.items():
        values = ", ".join(value for _n, _t, value, _d in struct_components(struct))
        body = textwrap.wrap(f"return new {record}({values});", 104, subsequent_indent="        ",
                             break_long_words=False)
        out += ["", f"    static {record} {method}({struct} s) {{", *[f"        {line}" for line in body], "    }"]
        if struct.endswith("_stats"):  # read by its getter, respite_<x>_stats_get(handle, out)
            out += ["", f"    static {record} {method}Stats(long pointer) {{", f"        {struct} s = new {struct}();",
                    "        try {", f"            RespiteNative.{struct}_get(pointer, s);", f"            return {method}(s);",
                    "        } finally {", "            s.delete();", "        }", "    }"]
    out += ["}", ""]
    return "\n".join(out)


def emit(tables: Tables) -> Dict[str, str]:
    files = {"RespiteException.java": emit_root(tables)}
    for s in tables.errors:
        files[class_name(s.name) + ".java"] = emit_exception(s)
    for e in tables.enums:
        files[e.type_name + ".java"] = emit_enum(e, EXTRA_MEMBERS.get(e.type_name, ""))
    files["Profile.java"] = emit_profile(tables)
    files["SettingInfo.java"] = emit_setting_info()
    files["SettingsTable.java"] = emit_settings_table(tables)
    for component in tables.components:
        files[pascal(component) + "Settings.java"] = emit_setters(tables, component)
    for struct, (record, _method) in STRUCTS.items():
        files[record + ".java"] = emit_struct_record(struct)
    files["NativeStats.java"] = emit_native_stats()
    return {f"{PACKAGE_DIR}/{name}": text for name, text in files.items()}
