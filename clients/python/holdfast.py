"""Holdfast client for Python agents: standard library only (Python 3.11+).

Queues deliver at least once, so every step of an agent may run twice. ``run_step``
makes a step safe to redeliver: Holdfast begins it (a completed step is replayed
from its stored result, a running one is told to wait, an uncertain or exhausted
one is stopped), the body runs only when told to, and the outcome is reported so
Holdfast decides between retry and stop. The agent never decides on its own.

    from holdfast import HoldfastClient, StepError, run_step

    client = HoldfastClient("http://127.0.0.1:3000", "hf_...")

    def draft(attempt):
        reply = call_model(prompt)                 # raise StepError("rate_limited", ...) on a 429
        return {"text": reply.text}, reply.cost_micros

    outcome = run_step(client, {"taskId": "ticket-42", "agent": "support", "owner": "team:support",
                                "step": "draft_reply", "content": {"prompt": prompt}}, draft)
    if outcome.status in ("completed", "replayed"): send(outcome.result)
    elif outcome.status == "retry": requeue(after_ms=outcome.delay_ms)
    elif outcome.status == "wait": requeue(after_ms=outcome.retry_after_ms)
    else: ack_and_drop(outcome)                    # stop: a person has a hold (outcome.hold_id)

Request dicts are the API's JSON bodies, with its field names (``taskId``,
``inProgressTtlMs``...), so the OpenAPI document at /api/v1/openapi.json describes them.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Callable, Literal, Mapping

__all__ = ["HoldfastClient", "HoldfastError", "StepError", "StepAttempt", "StepOutcome", "run_step", "ERROR_CLASSES"]

ErrorClass = Literal["transient", "timeout", "rate_limited", "invalid_output", "permanent", "unknown"]
ERROR_CLASSES: tuple[str, ...] = ("transient", "timeout", "rate_limited", "invalid_output", "permanent", "unknown")
#: Answers meaning "begin again later": the same request will be let through.
WAIT_CODES = frozenset({"KEY_IN_PROGRESS", "RETRY_BUDGET_EXHAUSTED", "BUDGET_EXHAUSTED", "PAUSED", "CIRCUIT_OPEN"})
#: Answers meaning "stop": beginning again will not help; a person (or a redrive) must act.
STOP_CODES = frozenset({"DO_NOT_RETRY", "KEY_PAYLOAD_MISMATCH", "UNCERTAIN_OUTCOME", "TASK_FROZEN", "TASK_FINISHED"})
_MAX_ERROR_TEXT = 10_000
_DAY_MS = 24 * 3_600_000


class HoldfastError(Exception):
    """A problem document (RFC 9457) from the API, with its stable ``code``.

    ``kind`` says what to do: ``wait`` (try the same request after ``retry_after``
    seconds), ``stop`` (change the request or ask a person) or ``error`` (neither
    is known, e.g. a 500). Network failures are not wrapped: they raise ``OSError``,
    because their outcome is unknown and the queue's redelivery is the right answer.
    """

    def __init__(self, status: int, code: str, detail: str, retryable: bool | None = None,
                 retry_after: float | None = None, field_errors: dict[str, list[str]] | None = None,
                 problem: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {detail}")
        self.status, self.code, self.detail, self.retryable = status, code, detail, retryable
        self.retry_after = retry_after
        self.field_errors: dict[str, list[str]] = field_errors or {}
        self.problem: dict[str, Any] = problem or {}

    @property
    def kind(self) -> Literal["wait", "stop", "error"]:
        if self.retryable is True or self.code in WAIT_CODES:
            return "wait"
        return "stop" if self.retryable is False or self.code in STOP_CODES else "error"


class StepError(Exception):
    """Raise from a step body to say how it failed, and so whether a retry can help.

    Anything else a body raises is classified ``unknown``, and unknown errors are
    never retried: an unknown cause is no evidence that trying again is safe.
    """

    def __init__(self, error_class: ErrorClass, message: str, retry_after_ms: int | None = None, cost_micros: int = 0) -> None:
        if error_class not in ERROR_CLASSES:
            raise ValueError(f"error_class must be one of {', '.join(ERROR_CLASSES)}, not {error_class!r}")
        super().__init__(message)
        self.error_class, self.message = error_class, message
        self.retry_after_ms, self.cost_micros = retry_after_ms, cost_micros


@dataclass(frozen=True)
class StepAttempt:
    """What a body is told: the derived key and the fencing token that proves it is still the holder."""
    key: str
    attempt_number: int
    fencing_token: int


@dataclass(frozen=True)
class StepOutcome:
    """What ``run_step`` answers; which fields are set depends on ``status``.

    completed: result, attempt_number, task_status. replayed: result.
    wait: code, retry_after_ms, detail. retry: delay_ms, attempt_number, error_class.
    stop: code, reason, detail, hold_id, dead_letter_id.
    A BUDGET_EXHAUSTED wait or a budget_exhausted stop also names the fleet spend budget in ``budget``
    (name, scope, scopeValue, period, limitMicros, periodEndsAt).
    """
    status: Literal["completed", "replayed", "wait", "retry", "stop"]
    result: Any = None
    attempt_number: int | None = None
    task_status: str | None = None
    retry_after_ms: int | None = None
    delay_ms: int | None = None
    error_class: str | None = None
    code: str | None = None
    reason: str | None = None
    detail: str | None = None
    hold_id: int | None = None
    dead_letter_id: int | None = None
    budget: dict[str, Any] | None = None


def _json_default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()  # the API wants an offset: pass aware datetimes
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


class HoldfastClient:
    """The agents' HTTP API, one method per endpoint; every method returns the 200/201 body as a dict.

    Pass ``idempotency_key`` to send the same ``Idempotency-Key`` header when you retry
    a call after a network failure: the server then answers the retry with the first answer.
    """

    def __init__(self, base_url: str, token: str, timeout: float = 30.0) -> None:
        self.base_url, self.token, self.timeout = base_url.rstrip("/"), token, timeout

    def post(self, path: str, body: Mapping[str, Any], idempotency_key: str | None = None) -> dict[str, Any]:
        """POSTs JSON to any agent endpoint; a non-2xx answer raises ``HoldfastError``."""
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
                   "Accept": "application/json", "User-Agent": "holdfast-python/1"}
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        data = json.dumps(dict(body), default=_json_default, allow_nan=False).encode("utf-8")
        request = urllib.request.Request(self.base_url + path, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            raise _problem(error) from None

    def begin_step(self, step_input: Mapping[str, Any], idempotency_key: str | None = None) -> dict[str, Any]:
        """``run`` or ``replay``; a wait or stop answer raises ``HoldfastError`` (409)."""
        return self.post("/api/v1/steps/begin", step_input, idempotency_key)

    def finish_step(self, report: Mapping[str, Any], idempotency_key: str | None = None) -> dict[str, Any]:
        """``completed`` or ``retry``; a stop raises (409), as do NOT_FOUND and STALE_TOKEN."""
        return self.post("/api/v1/steps/finish", report, idempotency_key)

    def finish_task(self, task_id: str, outcome: Literal["completed", "failed", "discarded"], idempotency_key: str | None = None) -> dict[str, Any]:
        """Ends a task, so it starts no new step and is never frozen: ``{taskId, status, changed}``."""
        return self.post("/api/v1/tasks/finish", {"taskId": task_id, "outcome": outcome}, idempotency_key)

    def record_attempt(self, attempt: Mapping[str, Any], idempotency_key: str | None = None) -> dict[str, Any]:
        """Reports one finished attempt made outside run_step: ``{attempt, duplicate}``."""
        return self.post("/api/v1/attempts", attempt, idempotency_key)

    def claim_key(self, claim: Mapping[str, Any], idempotency_key: str | None = None) -> dict[str, Any]:
        """Claims a derived key: ``acquired`` (act, then complete or fail it) or ``replay``."""
        return self.post("/api/v1/keys/claim", claim, idempotency_key)

    def complete_key(self, key: str, fencing_token: int, result: Any, idempotency_key: str | None = None) -> dict[str, Any]:
        """Settles a claimed key with the result every later claim replays."""
        return self.post("/api/v1/keys/complete", {"key": key, "fencingToken": fencing_token, "result": result}, idempotency_key)

    def fail_key(self, key: str, fencing_token: int, error_class: ErrorClass, error_text: str, idempotency_key: str | None = None) -> dict[str, Any]:
        """Fails a claimed key, so a retry may claim it again."""
        body = {"key": key, "fencingToken": fencing_token, "errorClass": error_class, "errorText": error_text}
        return self.post("/api/v1/keys/fail", body, idempotency_key)


def _problem(error: urllib.error.HTTPError) -> HoldfastError:
    try:
        body = json.loads(error.read() or b"{}")
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    retry_after: float | None = body.get("retryAfterSeconds") if isinstance(body.get("retryAfterSeconds"), (int, float)) else None
    header = error.headers.get("Retry-After") if error.headers else None
    if retry_after is None and header and header.strip().isdigit():
        retry_after = float(header)
    retryable = body.get("retryable")
    return HoldfastError(error.code, str(body.get("code") or f"HTTP_{error.code}"), str(body.get("detail") or error.reason),
                         retryable if isinstance(retryable, bool) else None, retry_after, body.get("fieldErrors"), body)


StepBody = Callable[[StepAttempt], Any]


def run_step(client: HoldfastClient, step_input: Mapping[str, Any], body: StepBody) -> StepOutcome:
    """Runs one step at most once per derived key, with the TypeScript runStep's semantics.

    The body gets a ``StepAttempt`` and returns ``(result, cost_micros)`` or
    ``{"result": ..., "cost_micros": ...}``, or instead of the cost the model call's
    ``"usage"`` (``input_tokens``, ``output_tokens``, ``cache_read_input_tokens``,
    ``cache_creation_input_tokens``), ``"model"`` and ``"provider"`` for Holdfast to
    price; the result is stored and replayed to
    every duplicate. A body that raises is finished as failed (``StepError`` keeps its
    class, anything else is ``unknown``). Invalid input and errors that are not a
    wait or a stop raise ``HoldfastError``; network failures raise ``OSError``.
    """
    try:
        begun = client.begin_step(step_input)
    except HoldfastError as error:
        return _outcome_in_problem(error)
    if begun["decision"] == "replay":
        return StepOutcome("replayed", result=begun.get("result"))
    attempt = StepAttempt(begun["key"], begun["attemptNumber"], begun["fencingToken"])
    target = {"key": attempt.key, "fencingToken": attempt.fencing_token}

    def finish(report: dict[str, Any], result: Any) -> StepOutcome:
        try:
            return _outcome_of(client.finish_step(report), result)
        except HoldfastError as error:
            return _outcome_in_problem(error)

    def finish_failed(error_class: str, text: str, spend: Mapping[str, Any] | None = None, retry_after_ms: int | None = None) -> StepOutcome:
        report: dict[str, Any] = {**target, "outcome": "failed", "errorClass": error_class, **(spend or {"costMicros": 0}),
                                  "errorText": text.replace("\x00", "").strip()[:_MAX_ERROR_TEXT] or "an error with no message"}
        if retry_after_ms is not None and _valid_cost(retry_after_ms):  # a nonsense Retry-After is dropped, like a nonsense cost
            report["retryAfterMs"] = min(retry_after_ms, _DAY_MS)
        return finish(report, None)

    try:
        result, spend = _unpack(body(attempt))
    except StepError as error:
        cost = error.cost_micros if _valid_cost(error.cost_micros) else 0  # a bad cost must not sink the failure report
        return finish_failed(error.error_class, str(error).strip() or f"{error.error_class} error with no message", {"costMicros": cost}, error.retry_after_ms)
    except Exception as error:  # noqa: BLE001 - every failure is reported; unknown ones are never retried
        return finish_failed("unknown", f"{type(error).__name__}: {error}")
    # A result that cannot be stored cannot be replayed: the step is wrong, not unlucky.
    try:
        json.dumps(result, default=_json_default, allow_nan=False)
    except (TypeError, ValueError) as error:
        return finish_failed("permanent", f"the step's result was refused: it is not JSON ({error})", spend)
    try:
        answer = client.finish_step({**target, "outcome": "succeeded", "result": result, **spend})
    except HoldfastError as error:
        if error.code not in ("INVALID_INPUT", "PAYLOAD_TOO_LARGE"):
            return _outcome_in_problem(error)
        return finish_failed("permanent", f"the step's result was refused: {error.detail}", spend)
    return _outcome_of(answer, result)


_BODY_KEYS = {"result", "cost_micros", "costMicros", "usage", "model", "provider"}
_USAGE_KEYS = {"input_tokens": "inputTokens", "output_tokens": "outputTokens",
               "cache_read_input_tokens": "cacheReadInputTokens", "cache_creation_input_tokens": "cacheCreationInputTokens"}


def _unpack(output: Any) -> tuple[Any, dict[str, Any]]:
    """The body's result and what it spent: a cost, or tokens and a model to price. A malformed return is a bug in the step, so it fails as unknown."""
    if isinstance(output, tuple) and len(output) == 2:
        result, cost = output
        spend: dict[str, Any] = {"costMicros": cost}
    elif isinstance(output, dict) and "result" in output and set(output) <= _BODY_KEYS:
        result, cost = output["result"], output.get("cost_micros", output.get("costMicros"))
        spend = {} if cost is None else {"costMicros": cost}
        if "usage" in output:
            spend["usage"] = {_USAGE_KEYS.get(key, key): count for key, count in dict(output["usage"]).items()}
        spend.update({key: output[key] for key in ("model", "provider") if key in output})
        if not spend:
            spend = {"costMicros": 0}
    else:
        raise TypeError(f"the step returned {type(output).__name__}: return (result, cost_micros) or {{'result': ..., 'cost_micros': ...}}")
    if "costMicros" in spend and not _valid_cost(spend["costMicros"]):
        raise ValueError(f"the step reported an invalid cost {spend['costMicros']!r}: costs are whole micro-dollars, 0 or more")
    return result, spend


def _valid_cost(value: Any) -> bool:
    """A whole, non-negative number JSON can carry exactly (micro-dollars or milliseconds)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2**53 - 1


def _outcome_of(answer: dict[str, Any], result: Any) -> StepOutcome:
    if answer["decision"] == "completed":
        return StepOutcome("completed", result=result, attempt_number=answer["attemptNumber"], task_status=answer["taskStatus"])
    return StepOutcome("retry", delay_ms=answer["delayMs"], attempt_number=answer["attemptNumber"], error_class=answer["errorClass"])


def _outcome_in_problem(error: HoldfastError) -> StepOutcome:
    """A wait or stop answer travels as a 409 problem; anything else is a real error and is raised."""
    problem = error.problem
    if error.code in WAIT_CODES:
        retry_after_ms = problem.get("retryAfterMs")
        if not isinstance(retry_after_ms, int):
            retry_after_ms = int((error.retry_after or 1) * 1000)
        return StepOutcome("wait", code=error.code, retry_after_ms=retry_after_ms, detail=error.detail,
                           budget=_budget_in(problem))
    if error.code in STOP_CODES and isinstance(problem.get("reason"), str):
        hold_id, letter_id = problem.get("holdId"), problem.get("deadLetterId")
        return StepOutcome("stop", code=error.code, reason=problem["reason"], detail=error.detail,
                           hold_id=hold_id if isinstance(hold_id, int) else None,
                           dead_letter_id=letter_id if isinstance(letter_id, int) else None,
                           budget=_budget_in(problem))
    raise error


def _budget_in(problem: Mapping[str, Any]) -> dict[str, Any] | None:
    """The fleet spend budget a budget wait or stop names, when it names one with a name."""
    budget = problem.get("budget")
    return dict(budget) if isinstance(budget, dict) and isinstance(budget.get("name"), str) else None
