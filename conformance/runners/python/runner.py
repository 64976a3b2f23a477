"""The Python conformance runner: reads normalised scenarios on stdin (one
JSON line each, written by conformance/run) and drives respite's public
Python API (not the raw module) step by step, printing one JSON line per
scenario: {"id", "steps": [observation, ...]} or {"id", "error": {...}}.
It compares nothing; conformance/run does (see conformance/README.md).
"""
import json
import math
import sys

import respite


# ---------------------------------------------------------- observations

def number_or_null(value):
    return None if (math.isinf(value) and value > 0) or math.isnan(value) else float(value)


def observe_error(exc):
    """{"error": {"status", "message", "setting"?, "retry_after"?}} from an exception."""
    if not isinstance(exc, respite.RespiteError):
        return runner_error(f"{type(exc).__name__}: {exc}")
    detail = {"status": exc.status, "message": str(exc)}
    if isinstance(exc, respite.InvalidSettingError):
        detail["setting"] = exc.setting
    if isinstance(exc, respite.TemporarilyUnavailableError):
        detail["retry_after"] = number_or_null(exc.retry_after)
    return {"error": detail}


def runner_error(message):
    return {"error": {"status": "runner", "message": message}}


def unknown_action(component, action):
    return runner_error(f"the {component} component has no action '{action}'")


class ScriptedFailure(Exception):
    """A scripted attempt that failed: carries its outcome, status and hint."""

    def __init__(self, outcome, status, retry_after):
        super().__init__(f"{outcome} ({status})")
        self.outcome = outcome
        self.status_code = status or None
        self.retry_after = retry_after


class CallersOwnError(Exception):
    """A scripted attempt that failed in the caller's own code (B18): an
    error the default classifier cannot tell is the service's."""


class ScriptedResponse:
    """A scripted attempt's returned answer (B18), read by status_of."""

    def __init__(self, status):
        self.status = status


def arg_outcome(arg):
    """(outcome name, http_status) of an outcome argument, which the driver
    made an object: {"outcome": name, "status"?}, {"status", "usable"} or
    {"transport": true}; as the C runner's arg_outcome."""
    if "outcome" in arg:
        return outcome_named(arg["outcome"]), arg.get("status", 0)
    if arg.get("transport"):
        return respite.classify(transport_failed=True).value, 0
    return respite.classify(arg["status"], body_usable=arg.get("usable", True)).value, arg["status"]


def outcome_named(name):
    """The outcome with that name, checked by the core (its message when unknown)."""
    from respite._outcome import outcome_code, outcome_from_code
    return outcome_from_code(outcome_code(name)).value


def scalar_settings(values):
    """Settings from a scenario object: {"number": "NaN"} is that double."""
    return {name: float(value["number"]) if isinstance(value, dict) else value
            for name, value in (values or {}).items()}


def event_to_json(event):
    out = {"type": event.type, "at": float(event.at), "line": event.message}
    if event.type == "recovery_started":
        out.update(failures=event.failures, window=float(event.window), pause=number_or_null(event.pause))
    elif event.type == "recovery_extended":
        out["pause"] = number_or_null(event.pause)
    elif event.type == "send_failed":
        out.update(http_status=event.http_status, detail=event.detail)
    elif event.type == "unsent_at_close":
        out["count"] = event.count
    return out


# ------------------------------------------------------------ components

class SettingsComponent:
    name = "settings"

    def __init__(self, scenario):
        self.target = scenario.get("target")
        if not isinstance(self.target, str):
            raise OpenFailure("a settings scenario needs a \"target\"")

    def step(self, action, arg, now):
        if action == "set":
            if not isinstance(arg, dict):
                return runner_error("set takes an object of settings")
            respite.Settings(self.target, **scalar_settings(arg))
            return {}
        if action == "get":
            if not isinstance(arg, str):
                return runner_error("get takes a setting's name")
            return {"value": respite.Settings(self.target).get(arg)}
        return unknown_action("settings", action)

    def close(self):
        pass


class OutcomeComponent:
    name = "outcome"

    def __init__(self, scenario):
        pass

    def step(self, action, arg, now):
        if action == "classify":
            outcome = respite.classify(arg["status"], transport_failed=arg["transport"], body_usable=arg["usable"])
            return {"outcome": outcome.value}
        if action == "counts":
            return {"counts": respite.outcome_counts(outcome_named(arg["outcome"]),
                                                     arg.get("count_all_failures") is True)}
        if action == "parse":
            return {"outcome": outcome_named(arg)}
        return unknown_action("outcome", action)

    def close(self):
        pass


class GateComponent:
    name = "gate"

    def __init__(self, scenario):
        """One gate, or "handles" gates from the same settings (a shared
        gate opened twice); a step's "handle" picks the one it uses."""
        profile = scenario.get("profile")
        self.gates = []
        try:
            for _ in range(scenario.get("handles", 1)):
                self.gates.append(respite.Gate(profile=profile if isinstance(profile, str) else None,
                                               **scalar_settings(scenario.get("settings"))))
        except BaseException:
            self.close()
            raise
        self.gate = self.gates[0]
        self.permits = {}

    def use_handle(self, handle):
        if not 0 <= handle < len(self.gates):
            raise OpenFailure(f"there is no gate handle {handle}")
        self.gate = self.gates[handle]

    def step(self, action, arg, now):
        g = self.gate
        if action == "check":
            decision = g.check(now=now)
            name = arg.get("as") if isinstance(arg, dict) else None
            if isinstance(name, str) and decision.allowed:
                self.permits[name] = decision.permit
            observed = {"allowed": decision.allowed, "probe": decision.probe,
                        "retry_after": number_or_null(decision.retry_after)}
            if not decision.allowed:
                observed["message"] = respite.refusal_message(decision.retry_after)
            return observed
        if action == "record":
            outcome, _status = arg_outcome(arg)
            name = permit = arg.get("permit", 0)  # an integer: forged
            if isinstance(name, str):
                if name not in self.permits:
                    return runner_error(f"no admitted check was named '{name}'")
                permit = self.permits[name]
            g.report(outcome, permit=permit, retry_after=arg["retry_after"], now=now)
            return {"outcome": outcome}
        if action == "acquire":
            g.acquire(now=now)
            return {}
        if action == "state":
            return {"state": g.state(now=now)}
        if action == "retry_after":
            return {"retry_after": number_or_null(g.retry_after(now=now))}
        if action == "stats":
            st = g.stats()
            return {"stats": {"admitted": st.admitted, "refused": st.refused, "reported": st.reported,
                              "counted_failures": st.counted_failures, "late": st.late, "trips": st.trips,
                              "probes": st.probes, "probe_timeouts": st.probe_timeouts,
                              "events_dropped": st.events_dropped, "generation": st.generation,
                              "window_failures": st.window_failures, "state": st.state,
                              "delay": number_or_null(st.delay), "until": number_or_null(st.until),
                              "successes": st.successes, "pauses": st.pauses}}
        if action == "events":
            return {"events": [event_to_json(e) for e in g.events()]}
        if action == "reset":
            g.reset(now=now)
            return {}
        if action == "refusal_message":
            return {"message": respite.refusal_message(math.inf if arg is None else arg)}
        if action == "close":
            g.close()
            return {}
        return unknown_action("gate", action)

    def close(self):
        for gate in self.gates:
            gate.close()


class BackoffComponent:
    name = "backoff"

    def __init__(self, scenario):
        self.backoff = respite.Backoff(**scalar_settings(scenario.get("settings")))
        self.gate = None
        if "gate" in scenario:
            try:
                self.gate = respite.Gate(**scalar_settings(scenario.get("gate")))
            except BaseException:
                self.backoff.close()
                raise

    def retry(self, arg):
        arg = arg or {}
        answers = list(arg.get("attempts") or [])
        made = [0]

        def attempt():
            made[0] += 1
            answer = answers.pop(0) if answers else 200
            if isinstance(answer, dict) and answer.get("callers_own"):
                raise CallersOwnError("scripted: the caller's own error")
            if isinstance(answer, dict) and "returned" in answer:
                return ScriptedResponse(answer["returned"])
            outcome, status = arg_outcome({"status": answer} if isinstance(answer, int) else answer)
            if outcome != "success":
                hint = answer.get("retry_after", 0) if isinstance(answer, dict) else 0
                raise ScriptedFailure(outcome, status, hint)
            return ScriptedResponse(status)

        def status_of(value):
            return value.status if isinstance(value, ScriptedResponse) else None

        # Language-neutral: what the loop did and how it ended (B20), not how a helper spells it.
        try:
            with respite.testing.immediate_retries(bool(arg.get("immediate"))):
                value = respite.retry_call(attempt, backoff=self.backoff, gate=self.gate, status_of=status_of)
        except CallersOwnError:  # re-raised unchanged, told to the gate as request_error
            return {"attempts": made[0], "gave_up": False, "last_outcome": "request_error", "result": None,
                    "failure": {"callers_own": True}}
        except (respite.TransportError, respite.TemporarilyUnavailableError) as exc:
            observed = {"attempts": exc.attempts, "gave_up": exc.status == "transport", "result": None}
            if exc.last_outcome is not None:
                observed["last_outcome"] = exc.last_outcome
            failure = {"status": exc.status}
            if exc.status != "temporarily_unavailable":  # a refusal depends on the real clock
                failure["message"] = str(exc)
            if isinstance(exc, respite.TransportError):  # the value the give-up carries
                failure["result"] = None if exc.result is None else exc.result.status
            observed["failure"] = failure
            return observed
        return {"attempts": made[0], "gave_up": False, "last_outcome": "success", "result": value.status}

    def gave_up(self, arg):
        outcome, status = arg_outcome(arg)
        return observe_error(self.backoff.gave_up_error(arg["attempts"], outcome, status))

    def step(self, action, arg, now):
        b = self.backoff
        if action == "start":
            return {"sequence": b.start()}
        if action == "delay":
            return {"delay": b.delay(arg["retry"], sequence=arg["sequence"], retry_after=arg["retry_after"])}
        if action == "delays":
            return {"delays": [b.delay(k, sequence=arg["sequence"], retry_after=arg["retry_after"])
                               for k in range(1, arg["count"] + 1)]}
        if action in ("next", "schedule"):
            outcome, status = arg_outcome(arg)
            sequence, hint = arg["sequence"], arg["retry_after"]
            if action == "next":
                attempt = arg["attempt"]
                delay = b.next(sequence, attempt, outcome, status=status, retry_after=hint)
                return {"retry": False} if delay is None else {"retry": True, "delay": delay}
            delays = []
            for attempt in range(1, 1001):
                delay = b.next(sequence, attempt, outcome, status=status, retry_after=hint)
                if delay is None:
                    break
                delays.append(delay)
            return {"delays": delays}
        if action == "retries_on":
            outcome, status = arg_outcome(arg)
            return {"retries": b.retries_on(outcome, status)}
        if action == "max_attempts":
            return {"max_attempts": b.max_attempts}
        if action == "retry":
            return self.retry(arg)
        if action == "gave_up":
            return self.gave_up(arg)
        if action == "close":
            b.close()
            return {}
        return unknown_action("backoff", action)

    def close(self):
        self.backoff.close()
        if self.gate is not None:
            self.gate.close()


def describe_policy(policy):
    return {"valid": True, "policy": policy.to_dict(),
            "fields": {"name": policy.name, "maximum_capacity": policy.maximum_capacity,
                       "retry_times": policy.retry_times, "event_ttl": policy.event_ttl,
                       "prefetch_count": policy.prefetch_count}}


def making(make):
    """Observation of making a policy: valid with its description, or every problem."""
    try:
        policy = make()
    except respite.InvalidPolicyError as exc:
        problems = []
        for p in exc.problems:
            entry = {"pointer": p.pointer, "message": p.message}
            if p.line > 0:
                entry.update(line=p.line, column=p.column)
            problems.append(entry)
        return None, {"valid": False, "message": str(exc), "problems": problems}
    return policy, describe_policy(policy)


class PolicyComponent:
    name = "policy"

    def __init__(self, scenario):
        self.policy = None

    def keep(self, made):
        policy, observed = made
        if policy is not None:
            if self.policy is not None:
                self.policy.close()
            self.policy = policy
        return observed

    def step(self, action, arg, now):
        if action == "validate":
            arg = arg if isinstance(arg, dict) else {}
            text, pad = arg.get("text"), arg.get("pad")
            if isinstance(text, str):
                if isinstance(pad, int) and pad > 0:
                    text = text + " " * pad
            elif "document" in arg:
                text = json.dumps(arg["document"], indent=2, ensure_ascii=False)
            elif isinstance(arg.get("hex"), str):
                text = bytes.fromhex(arg["hex"])  # bytes, as bytes
            else:
                return runner_error("validate takes {\"document\": value}, {\"text\": string} or {\"hex\": string}")
            return self.keep(making(lambda: respite.Policy.from_json(text)))
        if action == "build":
            arg = arg if isinstance(arg, dict) else {}
            handlers = [(h.get("on"), h.get("strategy")) for h in arg.get("handlers") or []]
            capacity = arg.get("maximum_capacity")
            return self.keep(making(lambda: respite.Policy.build(
                arg.get("name") if isinstance(arg.get("name"), str) else None,
                capacity if isinstance(capacity, int) else 0, handlers,
                retry_times=arg.get("retry_times"), event_ttl=arg.get("event_ttl"),
                prefetch_count=arg.get("prefetch_count"))))
        if action == "default":
            return self.keep(making(respite.Policy.default))
        if action == "strategy":
            policy = self.policy
            if policy is None:  # no valid policy yet: a closed one, which the core refuses
                policy = respite.Policy.default()
                policy.close()
            status = arg.get("status") if isinstance(arg, dict) else None
            return {"strategy": policy.strategy_for(status if isinstance(status, int) else None,
                                                    transport=isinstance(arg, dict) and arg.get("transport") is True)}
        return unknown_action("policy", action)

    def close(self):
        if self.policy is not None:
            self.policy.close()


class DeliveryComponent:
    name = "delivery"

    def __init__(self, scenario):
        spec = scenario.get("policy")
        self.parts = []
        self.batch = None
        endpoint = scenario["endpoint"]
        self.sequence, self.otherwise = list(endpoint["sequence"]), endpoint["otherwise"]
        self.by_event = {event: list(answers) for event, answers in endpoint["by_event"].items()}
        try:
            self.policy = (respite.Policy.default() if spec == "@default"
                           else respite.Policy.from_json(json.dumps(spec)))
            self.parts.append(self.policy)
            self.queue = respite.Queue(self.policy, **scalar_settings(scenario.get("queue")))
            self.parts.append(self.queue)
            profile = scenario.get("profile")
            self.gate = respite.Gate(profile=profile if isinstance(profile, str) else None,
                                     **scalar_settings(scenario.get("gate")))
            self.parts.append(self.gate)
            self.engine = respite.Engine(self.queue, self.gate,
                                         **scalar_settings(scenario.get("engine")))
            self.parts.append(self.engine)
        except BaseException:
            self.close()
            raise

    def enqueue(self, events, now):
        accepted, refused = 0, {}
        for event in events:
            try:
                self.queue.enqueue(event, now=now)
                accepted += 1
            except respite.RespiteError as exc:
                refused[exc.status] = refused.get(exc.status, 0) + 1
        observed = {"accepted": accepted}
        if refused:
            observed["refused"] = refused
        return observed

    def next_action(self, now):
        action = self.engine.next(now=now)
        observed = {"action": action}
        if action == "wait":
            observed["wait_seconds"] = number_or_null(self.engine.wait_seconds)
        return observed

    def take(self, now):
        if self.batch is not None:
            return runner_error("the batch taken before has not been settled")
        self.batch = self.engine.take(now=now)
        if self.batch is None:
            return {"events": [], "attempts": []}
        return {"events": [p.decode("utf-8", "replace") for p in self.batch.payloads],
                "attempts": [self.batch.attempts(i) for i in range(len(self.batch))]}

    def scripted_answer(self):
        """The next answer of the batch's first event scripted by_event that
        has one left, else the sequence's next, else "otherwise"."""
        for event in self.batch.payloads:
            answers = self.by_event.get(event.decode("utf-8", "replace"))
            if answers:
                return answers.pop(0)
        return self.sequence.pop(0) if self.sequence else self.otherwise

    def settle(self, answer, now):
        if self.batch is None:
            return runner_error("settle needs a batch taken before")
        if answer is None:
            answer = self.scripted_answer()
            if answer is None:
                return runner_error("the endpoint has no more answers")
        given = {"status": answer} if isinstance(answer, int) else answer
        transport, hint = given.get("transport", False), given.get("retry_after", 0)
        batch, self.batch = self.batch, None  # settle frees it, whatever it returns
        self.engine.settle(batch, status=given.get("status"), transport=transport, retry_after=hint,
                           now=now)
        return {"answer": answer}

    def send(self, now):
        observed = self.take(now)
        if "error" in observed or self.batch is None:
            return observed
        try:
            settled = self.settle(None, now)
        except respite.RespiteError as exc:
            return observe_error(exc)
        if "error" in settled:
            return settled
        observed["answer"] = settled["answer"]
        return observed

    def step(self, action, arg, now):
        if action == "enqueue":
            return self.enqueue(arg, now)
        if action == "next":
            return self.next_action(now)
        if action == "take":
            return self.take(now)
        if action == "settle":
            return self.settle(arg, now)
        if action == "send":
            return self.send(now)
        if action == "run":
            sends = []
            for _ in range(100000):
                observed = self.next_action(now)
                if observed["action"] != "send":
                    observed["sends"] = sends
                    return observed
                sent = self.send(now)
                if "error" in sent:
                    return sent
                sends.append(sent["events"])
            return runner_error("run: still sending after 100000 batches")
        if action == "close":
            self.engine.shutdown(now=now)
            return {}
        if action == "expire":
            return {"expired": self.queue.expire(now=now)}
        if action == "state":
            return {"state": self.gate.state(now=now)}
        if action == "stats":
            q, e = self.queue.stats(), self.engine.stats()
            queue = {k: getattr(q, k) for k in ("accepted", "delivered", "dropped_capacity", "expired",
                                                "retries_exhausted", "discarded", "pending", "in_flight",
                                                "refused_full", "refused_too_large", "refused_closed", "retried",
                                                "pending_bytes", "capacity", "closed")}
            engine = {k: getattr(e, k) for k in ("sends", "probes", "sends_failed", "refusals", "events_sent",
                                                 "unsent", "closing", "closed_while_paused")}
            return {"queue": queue, "engine": engine, "balanced": q.balanced}
        if action == "events":
            return {"gate": [event_to_json(e) for e in self.gate.events()],
                    "engine": [event_to_json(e) for e in self.engine.events()]}
        return unknown_action("delivery", action)

    def close(self):
        for part in reversed(self.parts):
            part.close()


COMPONENTS = {c.name: c for c in (SettingsComponent, OutcomeComponent, GateComponent, BackoffComponent,
                                  PolicyComponent, DeliveryComponent)}


class OpenFailure(Exception):
    pass


# ------------------------------------------------------------------ main

def error_of(exc):
    """The error observation's object for anything a step or set-up raised."""
    if isinstance(exc, respite.RespiteError):
        return observe_error(exc)["error"]
    return runner_error(str(exc) if isinstance(exc, OpenFailure) else f"{type(exc).__name__}: {exc}")["error"]


def run_step(component, step):
    action = next(k for k in step if k not in ("at", "repeat", "handle"))
    observed = None
    if "handle" in step:
        if not hasattr(component, "use_handle"):
            return runner_error(f"the {component.name} component has one handle")
        try:
            component.use_handle(step["handle"])
        except Exception as exc:
            return {"error": error_of(exc)}
    for _ in range(step["repeat"]):
        try:
            observed = component.step(action, step[action], float(step["at"]))
        except Exception as exc:  # never dies: the step observes what went wrong
            observed = {"error": error_of(exc)}
        if "error" in observed:
            break
    return observed


def run_scenario(scenario):
    result = {"id": scenario["id"]}
    try:
        component = COMPONENTS[scenario["component"]](scenario)
    except Exception as exc:
        result["error"] = error_of(exc)
        return result
    try:
        result["steps"] = [run_step(component, step) for step in scenario["steps"]]
    finally:
        try:
            component.close()
        except Exception:
            pass
    return result


def main():
    for line in sys.stdin:
        print(json.dumps(run_scenario(json.loads(line)), allow_nan=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
