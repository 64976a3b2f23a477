"""Python: the package respite.generated (bindings/python/src/respite/generated/).

- errors.py: RespiteError and one class per status, with the names and bases
  respite has always had (InvalidSettingError(RespiteError, ValueError), ...),
  the fields of respite_error as attributes, and error_from_fields(), the one
  constructor the SWIG exception typemap calls.
- tables.py: the names of every enumeration, Outcome as an enum, the settings
  table (with min_exclusive/max_exclusive) and the profiles.
- structs.py: the core's result structs as typed named tuples (fields read
  from the public headers, then the ones the binding adds); respite._structs
  gives them their readers and checks the fields against SWIG's.
- settings.py: one TypedDict per component, so settings given as keyword
  arguments are checked by mypy (a misspelt name is a type error).
"""
from __future__ import annotations

import math
import textwrap
from typing import Any, Dict, List

from tables import HEADER, Setting, Tables, pascal, read_struct, sentence, setting_reads, upper

DIRECTORY = "bindings/python/src/respite/generated"

# The builtin each status's class also derives from, so idiomatic
# `except ValueError` keeps working.
BUILTIN_BASES: Dict[str, str] = {
    "invalid_argument": "ValueError",
    "invalid_setting": "ValueError",
    "invalid_time": "ValueError",
    "invalid_policy": "ValueError",
    "too_large": "ValueError",
    "closed": "ValueError",
    "no_memory": "MemoryError",
}

# What each field means, for the docstrings, and its constructor parameter.
FIELD_DOC = {
    "setting": "the setting's name as the spec writes it (respite_error.setting)",
    "retry_after": "seconds until a call may be admitted; math.inf when only a reset recovers",
    "problems": "every problem of the policy, in document order",
}
FIELD_PARAM = {
    "setting": 'setting: str = ""',
    "retry_after": "retry_after: float = math.nan",
    "problems": "problems: Optional[Sequence[Problem]] = None",
}
FIELD_INIT = {
    "setting": "self.setting: str = setting",
    "retry_after": "self.retry_after: float = retry_after",
    "problems": "self.problems: List[Problem] = list(problems or [])",
}

# What the binding attaches after the core made the exception (tables.ATTACHED_FIELDS).
ATTACHED_DOC = {
    "result": "the last value the retried call returned when the retry helper gave up on it (spec B20); "
              "None when its last attempt raised (then ``__cause__``) or the error is not a give-up",
}


def class_name(status: str) -> str:
    return pascal(status) + "Error"


def literal(value: Any) -> str:
    """A Python literal for a table value."""
    if isinstance(value, float) and math.isinf(value):
        return "math.inf" if value > 0 else "-math.inf"
    return repr(value)


def number(setting: Setting, value: Any) -> str:
    if value is None:
        return "None"
    return literal(int(value) if setting.type == "integer" else float(value))


def default(setting: Setting) -> str:
    if setting.type in ("integer", "number"):
        return number(setting, setting.default)
    return literal(setting.default)


def emit_errors(tables: Tables) -> str:
    internal = next(s for s in tables.statuses if s.name == "internal")
    out: List[str] = [
        f'"""{HEADER}.',
        "",
        "One exception class per status of the core (respite_status_name), each",
        "carrying the fields of respite_error that mean something for it.",
        '"""',
        "from __future__ import annotations",
        "",
        "import math",
        "from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Type",
        "",
        "",
        "class Problem(NamedTuple):",
        '    """One problem of a delivery policy: JSON pointer, message, and for a',
        '    syntax error the line and column (0 otherwise)."""',
        "",
        "    pointer: str",
        "    message: str",
        "    line: int = 0",
        "    column: int = 0",
        "",
        "",
        "class RespiteError(Exception):",
        '    """Root of every error respite raises. ``str(err)`` is the core\'s message."""',
        "",
        "    #: the core's stable status name (\"invalid_setting\", \"closed\", ...)",
        f"    status: str = {internal.name!r}",
        "    #: the core's numeric status code",
        f"    code: int = {internal.code}",
        "",
        "    def __init__(self, message: str) -> None:",
        "        super().__init__(message)",
        "        self.message = message",
    ]
    for status in tables.errors:
        bases = "RespiteError" + (f", {BUILTIN_BASES[status.name]}" if status.name in BUILTIN_BASES else "")
        doc = [sentence(status.description)] + [f"``.{f}``: {FIELD_DOC[f]}." for f in status.fields]
        doc[-1] += '"""'
        out += ["", "", f"class {class_name(status.name)}({bases}):", '    """' + doc[0], *[f"    {d}" for d in doc[1:]],
                "", f"    status = {status.name!r}", f"    code = {status.code}"]
        for f in status.attached:
            out += [f"    #: {line}" for line in textwrap.wrap(ATTACHED_DOC[f], 100)] + [f"    {f}: Any = None"]
        if status.fields:
            params = ", ".join(FIELD_PARAM[f] for f in status.fields)
            out += ["", f"    def __init__(self, message: str, {params}) -> None:", "        super().__init__(message)"]
            out += [f"        {FIELD_INIT[f]}" for f in status.fields]
    out += [
        "",
        "",
        "#: status name -> exception class, for every status of the core but \"ok\"",
        "ERRORS_BY_STATUS: Dict[str, Type[RespiteError]] = {",
        *[f"    {s.name!r}: {class_name(s.name)}," for s in tables.errors],
        "}",
        "#: status code -> exception class",
        "ERRORS_BY_CODE: Dict[int, Type[RespiteError]] = {cls.code: cls for cls in ERRORS_BY_STATUS.values()}",
        "",
        "",
        "def error_from_fields(code: int, message: str, setting: str = \"\", retry_after: float = math.nan,",
        "                      problems: Optional[Sequence[Problem]] = None) -> RespiteError:",
        '    """The exception for a respite_error\'s fields (status code, message,',
        '    setting, retry_after) and a policy\'s problems; each class takes the',
        '    fields it carries. A code the table does not know gives a RespiteError',
        '    with that code."""',
        "    cls = ERRORS_BY_CODE.get(code)",
    ]
    for status in tables.errors:
        if status.fields:
            args = ", ".join(f"{f}={f}" for f in status.fields)
            out += [f"    if cls is {class_name(status.name)}:", f"        return {class_name(status.name)}(message, {args})"]
    out += [
        "    if cls is None:",
        "        err = RespiteError(message)",
        "        err.code = code",
        "        return err",
        "    return cls(message)",
        "",
        "",
        "# The classes are respite's public ones: they show (and pickle) as respite.X.",
        "for _cls in (Problem, RespiteError, *ERRORS_BY_STATUS.values()):",
        "    _cls.__module__ = \"respite\"",
        "del _cls",
        "",
        "# written out, so type checkers see every re-export of respite/__init__.py",
        "__all__ = [\"Problem\", \"RespiteError\", \"ERRORS_BY_STATUS\", \"ERRORS_BY_CODE\", \"error_from_fields\",",
        *textwrap.wrap(", ".join(f'"{class_name(s.name)}"' for s in tables.errors) + "]", 108,
                       initial_indent=" " * 11, subsequent_indent=" " * 11),
    ]
    return "\n".join(out) + "\n"


def emit_tables(tables: Tables) -> str:
    out: List[str] = [
        f'"""{HEADER}.',
        "",
        "The core's enumerations (names in code order), its settings table and",
        "its profiles, as data.",
        '"""',
        "from __future__ import annotations",
        "",
        "import enum",
        "from typing import Any, Dict, NamedTuple, Optional, Tuple",
        "",
        "#: status names in code order (0 is \"ok\")",
        "STATUS_NAMES: Tuple[str, ...] = (" + ", ".join(repr(s.name) for s in tables.statuses) + ",)",
    ]
    for e in tables.enums:
        out += [f"#: {e.doc}: names in code order",
                f"{upper(e.key)}: Tuple[str, ...] = (" + ", ".join(repr(n) for n in e.names) + ",)"]
    outcomes = tables.enum("outcomes")
    out += [
        "#: event types logged as warnings (respite_event_is_warning)",
        "WARNING_EVENT_TYPES = frozenset({" + ", ".join(repr(n) for n, w in tables.warning_events.items() if w) + "})",
        "#: the components that have settings",
        "COMPONENTS: Tuple[str, ...] = (" + ", ".join(repr(c) for c in tables.components) + ",)",
        "",
        "",
        "class Outcome(str, enum.Enum):",
        '    """What happened to one call; the values are the core\'s names."""',
        "",
        *[f"    {upper(n)} = {n!r}" for n in outcomes.names],
        "",
        "    @property",
        "    def code(self) -> int:",
        '        """The core\'s number (respite_outcome)."""',
        "        return OUTCOMES.index(self.value)",
        "",
        "    @property",
        "    def counts(self) -> bool:",
        '        """Whether this outcome counts against the service (without count_all_failures)."""',
        "        return self.value in _COUNTED_OUTCOMES",
        "",
        "",
        "_COUNTED_OUTCOMES = frozenset({" + ", ".join(repr(n) for n, c in tables.outcome_counts.items() if c) + "})",
        "",
        "",
        "class SettingInfo(NamedTuple):",
        '    """One row of the core\'s settings table (respite_setting_at)."""',
        "",
        "    component: str",
        "    name: str",
        "    #: integer, number, boolean, choice, string or list",
        "    type: str",
        "    default: Any",
        "    #: integer/number: the bounds, with whether each is excluded; None otherwise",
        "    min: Optional[float]",
        "    max: Optional[float]",
        "    min_exclusive: bool",
        "    max_exclusive: bool",
        "    #: choice: the accepted words; None otherwise",
        "    choices: Optional[Tuple[str, ...]]",
        "    #: the accepted range as the core's errors say it",
        "    accepted: str",
        "    doc: str",
        "",
        "",
        "#: every setting of every component, in the core's order",
        "SETTINGS: Tuple[SettingInfo, ...] = (",
    ]
    for s in tables.settings:
        choices = "None" if s.choices is None else "(" + ", ".join(repr(c) for c in s.choices) + ",)"
        out.append(f"    SettingInfo({s.component!r}, {s.name!r}, {s.type!r}, {default(s)}, "
                   f"{number(s, s.min)}, {number(s, s.max)}, {s.min_exclusive!r}, {s.max_exclusive!r}, {choices}, "
                   f"{s.accepted!r}, {s.doc!r}),")
    out += [
        ")",
        "",
        "#: profile name -> (component, {setting: value it changes from the component's default})",
        "PROFILES: Dict[str, Tuple[str, Dict[str, Any]]] = {",
    ]
    for p in tables.profiles:
        overrides = tables.profile_overrides(p)
        body = ", ".join(f"{name!r}: {literal(v)}" for name, v in overrides.items())
        out.append(f"    {p.name!r}: ({p.component!r}, {{{body}}}),")
    out += ["}", ""]
    return "\n".join(out)


def emit_init(tables: Tables) -> str:
    return "\n".join([
        f'"""{HEADER}.',
        "",
        "respite.generated: the core's tables for the Python binding. Regenerate",
        "with tools/gen/generate.py (tools/gen/README.md).",
        '"""',
        "from .errors import *  # noqa: F401,F403",
        "from .errors import __all__ as _errors_all",
        "from .tables import (COMPONENTS, PROFILES, SETTINGS, STATUS_NAMES, WARNING_EVENT_TYPES,  # noqa: F401",
        "                     Outcome, SettingInfo)",
        "from .tables import " + ", ".join(upper(e.key) for e in tables.enums) + "  # noqa: F401",
        "",
        "__all__ = list(_errors_all) + [\"COMPONENTS\", \"PROFILES\", \"SETTINGS\", \"STATUS_NAMES\",",
        "                               \"WARNING_EVENT_TYPES\", \"Outcome\", \"SettingInfo\",",
        "                               " + ", ".join(f'"{upper(e.key)}"' for e in tables.enums) + "]",
        "",
    ])


# The Python type a setting of each type accepts (_settings._set).
_PY_TYPES = {"integer": "int", "number": "float", "boolean": "bool", "string": "str",
             "list": "Union[str, Sequence[Union[str, int]]]"}


def _setting_type(setting: Setting) -> str:
    if setting.choices:
        return f"Literal[{', '.join(repr(c) for c in setting.choices)}]"
    return _PY_TYPES[setting.type]


def emit_settings(tables: Tables) -> str:
    out: List[str] = [
        f'"""{HEADER}.',
        "",
        "The settings of each component as keyword-argument types: Gate(**settings:",
        "Unpack[GateSettings]) makes a misspelt or mistyped setting a type error.",
        '"""',
        "from __future__ import annotations",
        "",
        "from typing import Literal, Sequence, TypedDict, Union",
    ]
    for component in tables.components:
        out += ["", "", f"class {pascal(component)}Settings(TypedDict, total=False):",
                f'    """The {component} settings (spec section 8)."""', ""]
        for setting in tables.settings_of(component):
            out += [f"    #: {setting.doc}", f"    {setting.name}: {_setting_type(setting)}"]
    # A Sender takes its own settings, its queue's and its gate's as keywords
    # (a name several have, such as name, once), but url as its first parameter.
    combined = {}
    for component in ("sender", "queue", "gate"):
        for setting in tables.settings_of(component):
            if setting.name != "url":
                combined.setdefault(setting.name, setting)
    out += ["", "", "class SenderOptions(TypedDict, total=False):",
            '    """The keywords of respite.Sender: the sender\'s settings but url, the queue\'s and the gate\'s."""',
            ""]
    out += [f"    {setting.name}: {_setting_type(setting)}" for setting in combined.values()]
    names = [f'"{pascal(c)}Settings"' for c in tables.components] + ['"SenderOptions"']
    out += ["", "", "__all__ = [" + ", ".join(names) + "]", ""]
    return "\n".join(out)


# struct -> the class respite shows it as
STRUCTS = {"respite_decision": "Decision", "respite_event": "Event", "respite_gate_stats": "GateStats",
           "respite_queue_stats": "QueueStats", "respite_engine_stats": "EngineStats",
           "respite_sender_stats": "SenderStats", "respite_fleet_view": "FleetView"}
# Fields the binding reads as another type: a name from a core table, or a
# 0/1 flag: field -> (type, value of {v}, the SWIG struct's field).
_FLAG = ("bool", "bool({v})")
_CONVERTED = {"type": ("str", "EVENT_TYPES[{v}]"), "state": ("str", "GATE_STATES[{v}]"),
              "overflow": ("str", "OVERFLOWS[{v}]"), "allowed": _FLAG, "probe": _FLAG, "closing": _FLAG,
              "closed_while_paused": _FLAG, "closed": _FLAG, "paused": _FLAG, "connected": _FLAG,
              "holds_probe": _FLAG}
# Fields the binding adds after the struct's: name, type, value (of the SWIG struct raw), doc.
_ADDED = {
    "respite_event": [("message", "str", "_c.respite_event_message(raw)",
                       "the whole log line, as the core writes it (respite_event_message)"),
                      ("is_warning", "bool", "EVENT_TYPES[raw.type] in WARNING_EVENT_TYPES",
                       "logged as a warning (respite_event_is_warning)")],
    "respite_queue_stats": [("balanced", "bool", "_c.respite_queue_stats_balanced(raw) == 1",
                             "D9 holds for this snapshot (respite_queue_stats_balanced)")],
    "respite_sender_stats": [("accepted", "int", "raw.queue.accepted", "the queue's accepted, at the top"),
                             ("delivered", "int", "raw.queue.delivered", "the queue's delivered, at the top"),
                             ("balanced", "bool", "_c.respite_queue_stats_balanced(raw.queue) == 1",
                              "D9 holds for the queue's snapshot")],
}


def _py_type(field: str, ctype: str) -> str:
    if field in _CONVERTED:
        return _CONVERTED[field][0]
    if ctype in STRUCTS:
        return STRUCTS[ctype]
    return {"text": "str", "double": "float"}.get(ctype, "int")


def _py_value(field: str, ctype: str) -> str:
    """A field's value read from the SWIG struct ``raw``."""
    if field in _CONVERTED:
        return _CONVERTED[field][1].format(v=f"raw.{field}")
    if ctype in STRUCTS:
        return f"_read_{ctype[len('respite_'):]}(raw.{field})"
    return f"raw.{field}"


# A setting's number type -> how its value reads ({n}: the number); text
# types read as text (tables.setting_reads), and a type missing here stops
# the generator.
_SETTING_READS = {"integer": "int({n})", "number": "{n}", "boolean": "bool({n})"}


def _setting_reader(tables: Tables) -> List[str]:
    """read_setting: a setting's value in raw settings, as its type says."""
    number = "_c.respite_settings_get_number(raw, name)"
    reads = setting_reads(tables, number, "_c.respite_settings_get_text(raw, name)", _SETTING_READS)
    return [
        "",
        "",
        "# (component, setting) -> its type, and how each type reads",
        "_SETTING_TYPES: Dict[Tuple[str, str], str] = {",
        *[f'    ("{s.component}", "{s.name}"): "{s.type}",' for s in tables.settings],
        "}",
        "_SETTING_READS: Dict[str, Callable[[Any, str], Any]] = {",
        *[f'    "{kind}": lambda raw, name: {read},' for kind, read in reads.items()],
        "}",
        "",
        "",
        "def read_setting(raw: Any, component: str, name: str) -> Any:",
        '    """The value of ``component``\'s setting ``name`` in raw settings, as its',
        '    type says (an unknown name: read as a number, which the core refuses)."""',
        '    return _SETTING_READS[_SETTING_TYPES.get((component, name), "number")](raw, name)',
    ]


def emit_structs(tables: Tables) -> str:
    out: List[str] = [
        f'"""{HEADER}.',
        "",
        "The core's result structs as named tuples with typed fields, in C order",
        "(read from the public headers), then the fields the binding adds; one",
        "reader each, used through read_struct and fill_struct; and read_setting,",
        "a setting's value by its type.",
        '"""',
        "from __future__ import annotations",
        "",
        "from typing import Any, Callable, Dict, NamedTuple, Tuple, Type, TypeVar",
        "",
        "from .. import _respite_swig as _c",
        "from .. import respite_swig as _raw",
        "from .tables import EVENT_TYPES, GATE_STATES, OVERFLOWS, WARNING_EVENT_TYPES",
        "",
        'S = TypeVar("S")',
    ]
    for struct, cls in STRUCTS.items():
        summary, fields = read_struct(struct)
        out += ["", "", f"class {cls}(NamedTuple):", f'    """{sentence(summary) + " " if summary else ""}({struct})"""',
                ""]
        for field, ctype, comment in fields:
            if comment:
                out.append(f"    #: {comment}")
            # a field named as a tuple method (count, index) shadows it, as namedtuple allows
            shadows = "  # type: ignore[assignment]" if hasattr(tuple, field) else ""
            out.append(f"    {field}: {_py_type(field, ctype)}{shadows}")
        for field, kind, _value, comment in _ADDED.get(struct, []):
            out += [f"    #: {comment}", f"    {field}: {kind}"]
        values = [_py_value(f, ctype) for f, ctype, _c in fields] + [v for _f, _k, v, _d in _ADDED.get(struct, [])]
        out += ["", "", f"def _read_{struct[len('respite_'):]}(raw: Any) -> {cls}:",
                *textwrap.wrap(f"return {cls}({', '.join(values)})", 110, initial_indent="    ",
                               subsequent_indent="        ", break_long_words=False)]
    classes = ", ".join(STRUCTS.values())
    out += [
        "",
        "",
        "# class -> (SWIG struct, reader)",
        "_READERS: Dict[type, Tuple[Any, Callable[[Any], Any]]] = {",
        *[f"    {cls}: (_raw.{struct}, _read_{struct[len('respite_'):]})," for struct, cls in STRUCTS.items()],
        "}",
        f"for _cls in ({classes}):",
        '    _cls.__module__ = "respite"',
        "",
        "",
        "def read_struct(cls: Type[S], out: Any) -> S:",
        '    """The named tuple ``cls`` read from a filled SWIG struct."""',
        "    return _READERS[cls][1](out)",
        "",
        "",
        "def fill_struct(cls: Type[S], fn: Callable[..., Any], *args: Any) -> S:",
        '    """The named tuple ``cls`` read from the struct that ``fn(*args, out)`` fills."""',
        "    out = _READERS[cls][0]()",
        "    fn(*args, out)",
        "    return read_struct(cls, out)",
        *_setting_reader(tables),
        "",
        "",
        "__all__ = [" + ", ".join(f'"{c}"' for c in STRUCTS.values()) + "]",
        "",
    ]
    return "\n".join(out)


def emit(tables: Tables) -> Dict[str, str]:
    return {"__init__.py": emit_init(tables), "errors.py": emit_errors(tables), "tables.py": emit_tables(tables),
            "settings.py": emit_settings(tables), "structs.py": emit_structs(tables)}
