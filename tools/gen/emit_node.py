"""Node: bindings/node/generated/.

- errors.js (+ .d.ts): RespiteError and one class per status
  (InvalidSettingError, ...), `code` the status name as today, the fields of
  respite_error as properties, and errorFromFields(), the one constructor the
  exception typemap calls.
- tables.js (+ .d.ts): the names of every enumeration, the settings table
  (with minExclusive/maxExclusive and the camelCase name), the profiles, and
  one options type per component with every key typed, so a misspelt setting
  fails type checking.
- structs.js (+ .d.ts): the core's result structs (statistics, events, a
  gate's decision) as plain objects, read from the public headers: every
  field in camelCase with its C comment, names from the tables, flags as
  booleans.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any, Dict, List, Tuple

from tables import HEADER, Setting, Tables, camel, describe_range, pascal, read_struct, sentence, setting_reads, upper

DIRECTORY = "bindings/node/generated"

FIELDS = {
    "setting": ("setting", "string", "the setting's name as the spec writes it (respite_error.setting)", "''"),
    "retry_after": ("retryAfter", "number", "seconds until a call may be admitted; Infinity when only a reset recovers",
                    "NaN"),
    "problems": ("problems", "Problem[]", "every problem of the policy, in document order", "[]"),
}

# What the binding attaches after the core made the error (tables.ATTACHED_FIELDS).
ATTACHED_DOC = {
    "result": "the last value the retried call resolved with when the retry helper gave up on it (spec B20); "
              "undefined when its last attempt threw (then `cause`) or the error is not a give-up",
}


def class_name(status: str) -> str:
    return pascal(status) + "Error"


def js(value: Any) -> str:
    """A JavaScript literal for a table value."""
    if isinstance(value, float) and math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return json.dumps(value, ensure_ascii=False)


def doc(text: str) -> str:
    return text.replace("*/", "*\\/")


def emit_errors_js(tables: Tables) -> str:
    out = [
        f"// {HEADER}.",
        "'use strict';",
        "// One error class per status of the core (respite_status_name); `code` is",
        "// the status name and each class carries the fields of respite_error that",
        "// mean something for it.",
        "",
        "class RespiteError extends Error {",
        "  constructor(message, code = 'internal') {",
        "    super(message);",
        "    this.code = code;",
        "  }",
        "",
        "  get name() {",
        "    return this.constructor.name;",
        "  }",
        "}",
    ]
    for s in tables.errors:
        fields = [FIELDS[f] for f in s.fields]
        out += ["", f"/** {doc(sentence(s.description))} */", f"class {class_name(s.name)} extends RespiteError {{"]
        if fields:
            names = ", ".join(f"{n} = {d}" for n, _t, _doc, d in fields)
            out += [f"  constructor(message, {{ {names} }} = {{}}) {{", f"    super(message, '{s.name}');"]
            for n, _t, text, _d in fields:
                out += [f"    /** {doc(text)} */", f"    this.{n} = {n};"]
        else:
            out += ["  constructor(message) {", f"    super(message, '{s.name}');"]
        out += ["  }", "}"]
    out += [
        "",
        "// status name -> class, for every status of the core but 'ok'",
        "const ERRORS_BY_STATUS = Object.freeze({",
        *[f"  {s.name}: {class_name(s.name)}," for s in tables.errors],
        "});",
        "// status code -> class",
        "const ERRORS_BY_CODE = Object.freeze([" +
        ", ".join(class_name(s.name) if s.name != "ok" else "undefined" for s in tables.statuses) + "]);",
        "",
        "// The error for a respite_error's fields (status code, message, setting,",
        "// retry_after) and a policy's problems; each class takes the fields it carries.",
        "function errorFromFields(code, message, setting = '', retryAfter = NaN, problems = []) {",
        "  const cls = ERRORS_BY_CODE[code];",
        "  if (cls === undefined) return new RespiteError(message, 'unknown');",
        "  return new cls(message, { setting, retryAfter, problems });",
        "}",
        "",
        "// Each class by name, so that Node's ESM loader sees it (it reads the",
        "// names from the text: `import { ClosedError } from 'respite'`).",
        "module.exports = {",
        "  RespiteError,",
        *[f"  {class_name(s.name)}," for s in tables.errors],
        "  ERRORS_BY_STATUS,",
        "  ERRORS_BY_CODE,",
        "  errorFromFields,",
        "};",
        "",
    ]
    return "\n".join(out)


def emit_errors_dts(tables: Tables) -> str:
    out = [
        f"// {HEADER}.",
        "import type { Problem } from './tables';",
        "",
        "export type StatusName = " + " | ".join(f"'{s.name}'" for s in tables.errors) + ";",
        "",
        "/** Root of every error respite throws; the message is the core's. */",
        "export class RespiteError extends Error {",
        "  constructor(message: string, code?: StatusName | 'unknown');",
        "  /** The core's status name, e.g. 'invalid_setting'. */",
        "  readonly code: StatusName | 'unknown';",
        "}",
    ]
    for s in tables.errors:
        fields = [FIELDS[f] for f in s.fields]
        out += ["", f"/** {doc(sentence(s.description))} */", f"export class {class_name(s.name)} extends RespiteError {{"]
        if fields:
            opts = "; ".join(f"{n}?: {t}" for n, t, _doc, _d in fields)
            out.append(f"  constructor(message: string, fields?: {{ {opts} }});")
            for n, t, text, _d in fields:
                out += [f"  /** {doc(text)} */", f"  readonly {n}: {t};"]
        else:
            out.append("  constructor(message: string);")
        for f in s.attached:
            out += [f"  /** {doc(ATTACHED_DOC[f])} */", f"  {f}?: unknown;"]
        out += [f"  readonly code: '{s.name}';", "}"]
    out += [
        "",
        "export const ERRORS_BY_STATUS: Readonly<Record<StatusName, typeof RespiteError>>;",
        "export const ERRORS_BY_CODE: ReadonlyArray<typeof RespiteError | undefined>;",
        "export function errorFromFields(code: number, message: string, setting?: string, retryAfter?: number,",
        "                                problems?: Problem[]): RespiteError;",
        "",
    ]
    return "\n".join(out)


def emit_tables_js(tables: Tables) -> str:
    out = [
        f"// {HEADER}.",
        "'use strict';",
        "// The core's enumerations (names in code order), its settings table and",
        "// its profiles, as data.",
        "",
        "// status names in code order (0 is 'ok')",
        "const STATUS_NAMES = Object.freeze(" + js([s.name for s in tables.statuses]) + ");",
    ]
    for e in tables.enums:
        out += [f"// {e.doc}", f"const {upper(e.key)} = Object.freeze({js(list(e.names))});"]
    out += [
        "// event types logged as warnings (respite_event_is_warning)",
        "const WARNING_EVENT_TYPES = Object.freeze(" + js([n for n, w in tables.warning_events.items() if w]) + ");",
        "// outcomes that count against the service (without countAllFailures)",
        "const COUNTED_OUTCOMES = Object.freeze(" + js([n for n, c in tables.outcome_counts.items() if c]) + ");",
        "// the components that have settings",
        "const COMPONENTS = Object.freeze(" + js(tables.components) + ");",
        "",
        "// Every setting of every component, in the core's order (respite_setting_at);",
        "// min/max are null and the exclusive flags false for non-numeric settings.",
        "const SETTINGS = Object.freeze([",
    ]
    for s in tables.settings:
        row = {
            "component": s.component, "name": s.name, "camelName": s.camel, "type": s.type, "default": s.default,
            "min": s.min, "max": s.max, "minExclusive": s.min_exclusive, "maxExclusive": s.max_exclusive,
            "choices": list(s.choices) if s.choices is not None else None, "accepted": s.accepted, "doc": s.doc,
        }
        if s.type == "number":
            row["default"] = float(s.default)
        body = ", ".join(f"{k}: {js(v)}" for k, v in row.items())
        out.append(f"  Object.freeze({{ {body} }}),")
    out += [
        "]);",
        "",
        "// profile name -> its component and the settings it changes from that",
        "// component's defaults",
        "const PROFILES = Object.freeze({",
    ]
    for p in tables.profiles:
        overrides = ", ".join(f"{k}: {js(v)}" for k, v in tables.profile_overrides(p).items())
        out.append(f"  {p.name}: Object.freeze({{ component: {js(p.component)}, "
                   f"overrides: Object.freeze({{ {overrides} }}) }}),")
    names = ["STATUS_NAMES"] + [upper(e.key) for e in tables.enums] + \
            ["WARNING_EVENT_TYPES", "COUNTED_OUTCOMES", "COMPONENTS", "SETTINGS", "PROFILES"]
    out += ["});", "", "module.exports = {", *[f"  {n}," for n in names], "};", ""]
    return "\n".join(out)


def ts_type(tables: Tables, s: Setting) -> str:
    if s.type in ("integer", "number"):
        return "number | bigint" if s.type == "integer" and s.max is not None and s.max > 2**31 else "number"
    if s.type == "boolean":
        return "boolean"
    if s.type == "choice":
        return " | ".join(f"'{c}'" for c in (s.choices or ()))
    if s.type == "list":
        return "string | Array<string | number>"
    return "string"


def emit_tables_dts(tables: Tables) -> str:
    out = [f"// {HEADER}.", ""]
    for e in tables.enums:
        out += [f"/** {doc(sentence(e.doc))} */",
                f"export type {e.type_name}Name = " + " | ".join(f"'{n}'" for n in e.names) + ";"]
    out += [
        "export type ComponentName = " + " | ".join(f"'{c}'" for c in tables.components) + ";",
        "export type ProfileName = " + " | ".join(f"'{p.name}'" for p in tables.profiles) + ";",
        "export type SettingType = 'integer' | 'number' | 'boolean' | 'choice' | 'string' | 'list';",
        "",
        "/** One problem of a delivery policy: JSON pointer, message, line and column (0 unless a syntax error). */",
        "export interface Problem {",
        "  pointer: string;",
        "  message: string;",
        "  line: number;",
        "  column: number;",
        "}",
        "",
        "/** One row of the core's settings table. */",
        "export interface SettingInfo {",
        "  readonly component: ComponentName;",
        "  readonly name: string;",
        "  readonly camelName: string;",
        "  readonly type: SettingType;",
        "  readonly default: number | boolean | string;",
        "  readonly min: number | null;",
        "  readonly max: number | null;",
        "  readonly minExclusive: boolean;",
        "  readonly maxExclusive: boolean;",
        "  readonly choices: ReadonlyArray<string> | null;",
        "  /** The accepted range as the core's errors say it. */",
        "  readonly accepted: string;",
        "  readonly doc: string;",
        "}",
    ]
    for component in tables.components:
        out += ["", f"/** The {component} settings by their camelCase names; the core checks every value. */",
                f"export interface {pascal(component)}Settings {{"]
        for s in tables.settings_of(component):
            out += [f"  /** {doc(sentence(s.doc) + ' ' + describe_range(s))} */", f"  {s.camel}?: {ts_type(tables, s)};"]
        out.append("}")
    out += [
        "",
        "export const STATUS_NAMES: ReadonlyArray<string>;",
        *[f"export const {upper(e.key)}: ReadonlyArray<{e.type_name}Name>;" for e in tables.enums],
        "export const WARNING_EVENT_TYPES: ReadonlyArray<EventTypeName>;",
        "export const COUNTED_OUTCOMES: ReadonlyArray<OutcomeName>;",
        "export const COMPONENTS: ReadonlyArray<ComponentName>;",
        "export const SETTINGS: ReadonlyArray<SettingInfo>;",
        "export const PROFILES: Readonly<Record<ProfileName, { readonly component: ComponentName; "
        "readonly overrides: Readonly<Record<string, number | boolean | string>> }>>;",
        "",
    ]
    return "\n".join(out)



# The core's result structs the binding hands out as plain objects
# (structs.js converts the SWIG objects, structs.d.ts types them): the
# TypeScript name and the converting function's.
STRUCTS = {
    "respite_decision": ("Decision", "decisionOf"),
    "respite_event": ("GateEvent", "eventOf"),
    "respite_gate_stats": ("GateStats", "gateStatsOf"),
    "respite_queue_stats": ("QueueStats", "queueStatsOf"),
    "respite_engine_stats": ("EngineStats", "engineStatsOf"),
    "respite_sender_stats": ("SenderStats", "senderStatsOf"),
    "respite_fleet_view": ("FleetView", "fleetViewOf"),
}
# A nested struct whose fields are also at the top (a sender's stats carry
# the queue's figures).
SPREAD = {"respite_sender_stats": "queue"}
# Fields the binding adds: name, TypeScript type, JavaScript value, doc.
ADDED = {
    "respite_event": [
        ("warning", "boolean", "native.respite_event_is_warning(raw.type) === 1",
         "a warning: sending paused or a pause grew (respite_event_is_warning)"),
        ("message", "string", "native.respite_event_message(raw)",
         "the whole log line, as the core writes it (respite_event_message)")],
    "respite_queue_stats": [
        ("balanced", "boolean", "native.respite_queue_stats_balanced(raw) === 1",
         "D9 holds for this snapshot (respite_queue_stats_balanced)")],
}
# Fields converted from their number: a name from a core table, a 0/1 flag,
# or -1 for "not yet": {field: (TypeScript type, JavaScript value of {v})}.
FLAG = ("boolean", "{v} === 1")
CONVERTED = {
    "type": ("EventTypeName", "EVENT_TYPES[{v}]"),
    "state": ("GateStateName", "GATE_STATES[{v}]"),
    "overflow": ("OverflowName", "OVERFLOWS[{v}]"),
    "unsent": ("number | null", "{v} < 0 ? null : Number({v})"),
    "allowed": FLAG, "probe": FLAG, "closing": FLAG, "closed_while_paused": FLAG, "closed": FLAG, "paused": FLAG,
    "connected": FLAG, "holds_probe": FLAG,
}
def convert(field: str, ctype: str, comment: str) -> Tuple[str, str, str]:
    """A field's TypeScript type, its JavaScript value read from `raw`, and
    its comment in JavaScript's values."""
    value = f"raw.{field}"
    if field in CONVERTED:
        ts, js_value = CONVERTED[field][0], CONVERTED[field][1].format(v=value)
    elif ctype in STRUCTS:
        ts, js_value = STRUCTS[ctype][0], f"{STRUCTS[ctype][1]}({value})"
    elif ctype == "text":
        ts, js_value = "string", value
    else:
        ts, js_value = "number", f"Number({value})"
    comment = comment.replace("INFINITY", "Infinity")
    if ts == "boolean":
        comment = re.sub(r"\b0\b", "false", re.sub(r"\b1\b", "true", comment))
    elif ts == "number | null":
        comment = comment.replace("-1", "null")
    return ts, js_value, comment


def struct_summary(struct: str, summary: str) -> str:
    return f"/** {doc(sentence(summary) + ' ' if summary else '')}({struct}) */"


# A setting's number type -> how its value reads ({n}: the number); text
# types read as text (tables.setting_reads), and a type missing here stops
# the generator.
SETTING_READS = {"integer": "{n}", "number": "{n}", "boolean": "{n} !== 0"}


def setting_reader(tables: Tables) -> List[str]:
    """settingValue: a setting's value in raw settings, as its type says."""
    number = "native.respite_settings_get_number(raw, name)"
    reads = setting_reads(tables, number, "native.respite_settings_get_text(raw, name)", SETTING_READS)
    return [
        "",
        "// component.setting -> its type, and how each type reads",
        "const SETTING_TYPES = new Map([",
        *[f"  ['{s.component}.{s.name}', '{s.type}']," for s in tables.settings],
        "]);",
        "const SETTING_READS = {",
        *[f"  {kind}: (raw, name) => {read}," for kind, read in reads.items()],
        "};",
        "",
        "// The value of component's setting `name` in raw settings, as its type says",
        "// (an unknown name reads as a number, which the core refuses).",
        "function settingValue(raw, component, name) {",
        "  return SETTING_READS[SETTING_TYPES.get(`${component}.${name}`) ?? 'number'](raw, name);",
        "}",
    ]


def emit_structs_js(tables: Tables) -> str:
    out = [
        f"// {HEADER}.",
        "'use strict';",
        "// The core's result structs (the SWIG objects its getters fill) as plain",
        "// objects: every field in camelCase, names from the core's tables, 0/1 flags",
        "// as booleans; the fields read from the public headers. And settingValue,",
        "// a setting's value by its type.",
        "const native = require('../lib/native');",
        "const { EVENT_TYPES, GATE_STATES, OVERFLOWS } = require('./tables');",
    ]
    for struct, (_ts, function) in STRUCTS.items():
        summary, fields = read_struct(struct)
        out += ["", struct_summary(struct, summary), f"function {function}(raw) {{"]
        spread = SPREAD.get(struct)
        if spread:
            nested = next(STRUCTS[ctype][1] for field, ctype, _c in fields if field == spread)
            out.append(f"  const {spread} = {nested}(raw.{spread});")
        out.append("  return {")
        if spread:
            out.append(f"    ...{spread},")
        for field, ctype, comment in fields:
            out.append(f"    {spread}," if field == spread else f"    {camel(field)}: {convert(field, ctype, comment)[1]},")
        for field, _ts_type, js_value, _doc in ADDED.get(struct, []):
            out.append(f"    {field}: {js_value},")
        out += ["  };", "}"]
    out += setting_reader(tables)
    out += ["", "module.exports = { " + ", ".join([f for _t, f in STRUCTS.values()] + ["settingValue"]) + " };", ""]
    return "\n".join(out)


def emit_structs_dts(_tables: Tables) -> str:
    out = [f"// {HEADER}.",
           "import type { EventTypeName, GateStateName, OverflowName } from './tables';"]
    for struct, (ts, _function) in STRUCTS.items():
        summary, fields = read_struct(struct)
        spread = next((STRUCTS[c][0] for f, c, _ in fields if f == SPREAD.get(struct)), None)
        out += ["", struct_summary(struct, summary),
                f"export interface {ts}{' extends ' + spread if spread else ''} {{"]
        for field, ctype, comment in fields:
            field_type, _js, comment = convert(field, ctype, comment)
            if comment:
                out.append(f"  /** {doc(comment)} */")
            out.append(f"  {camel(field)}: {field_type};")
        for field, field_type, _js, comment in ADDED.get(struct, []):
            out += [f"  /** {doc(comment)} */", f"  {field}: {field_type};"]
        out.append("}")
    out += ["", *[f"export function {f}(raw: unknown): {t};" for t, f in STRUCTS.values()],
            "export function settingValue(raw: unknown, component: string, name: string): number | boolean | string;"]
    return "\n".join(out) + "\n"


def emit(tables: Tables) -> Dict[str, str]:
    return {
        "errors.js": emit_errors_js(tables),
        "errors.d.ts": emit_errors_dts(tables),
        "tables.js": emit_tables_js(tables),
        "tables.d.ts": emit_tables_dts(tables),
        "structs.js": emit_structs_js(tables),
        "structs.d.ts": emit_structs_dts(tables),
    }
