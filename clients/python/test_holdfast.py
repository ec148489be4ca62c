"""The Python client against a live Holdfast: `npm run test:python` starts one and runs these.

By hand: HOLDFAST_URL=http://127.0.0.1:3000 HOLDFAST_TOKEN=hf_... python3 -m unittest discover -s clients/python -v
(the token needs the ingest scope). Without both variables the live tests are skipped,
unless HOLDFAST_REQUIRE_SERVER is set (the CI runner sets it), when they fail instead.
"""
from __future__ import annotations

import os
import time
import unittest
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

from holdfast import HoldfastClient, HoldfastError, StepAttempt, StepError, StepOutcome, run_step

URL = os.environ.get("HOLDFAST_URL", "")
TOKEN = os.environ.get("HOLDFAST_TOKEN", "")
if os.environ.get("HOLDFAST_REQUIRE_SERVER") and not (URL and TOKEN):
    raise RuntimeError("HOLDFAST_REQUIRE_SERVER is set but HOLDFAST_URL or HOLDFAST_TOKEN is not")
SKIP_REASON = "set HOLDFAST_URL and HOLDFAST_TOKEN (an API token with the ingest scope) to run the live client tests"
#: Queues under fleet spend budgets already spent today, one waiting and one stopping (the CI runner makes them).
SPENT_WAIT_QUEUE = os.environ.get("HOLDFAST_SPENT_WAIT_QUEUE", "")
SPENT_STOP_QUEUE = os.environ.get("HOLDFAST_SPENT_STOP_QUEUE", "")
if os.environ.get("HOLDFAST_REQUIRE_SERVER") and not (SPENT_WAIT_QUEUE and SPENT_STOP_QUEUE):
    raise RuntimeError("HOLDFAST_REQUIRE_SERVER is set but HOLDFAST_SPENT_WAIT_QUEUE or HOLDFAST_SPENT_STOP_QUEUE is not")


class StepErrorTest(unittest.TestCase):
    """No server needed: a StepError with an unknown class fails where it is raised, not on the server."""

    def test_refuses_an_unknown_error_class(self) -> None:
        with self.assertRaisesRegex(ValueError, "error_class must be one of"):
            StepError("flaky", "nope")  # type: ignore[arg-type]

    def test_keeps_class_retry_after_and_cost(self) -> None:
        error = StepError("rate_limited", "429", retry_after_ms=1500, cost_micros=20)
        self.assertEqual((error.error_class, error.retry_after_ms, error.cost_micros, str(error)), ("rate_limited", 1500, 20, "429"))


class WaitCodesTest(unittest.TestCase):
    """No server needed: a paused step or an open circuit is a wait, even from a server that leaves out `retryable`."""

    def test_paused_and_circuit_open_are_waits(self) -> None:
        for code in ("PAUSED", "CIRCUIT_OPEN", "KEY_IN_PROGRESS", "RETRY_BUDGET_EXHAUSTED", "BUDGET_EXHAUSTED"):
            self.assertEqual(HoldfastError(409, code, "held").kind, "wait", code)
        self.assertEqual(HoldfastError(409, "DO_NOT_RETRY", "stop").kind, "stop")


def number(value: float | None) -> float:
    """A figure the answer must carry (fails the test when it is missing)."""
    if value is None:
        raise AssertionError("expected a number, got None")
    return value


class Body:
    """A step body that counts its calls and returns (or raises) what it is given."""

    def __init__(self, output: Any = None, error: Exception | None = None) -> None:
        self.output, self.error, self.attempts = output, error, []

    def __call__(self, attempt: StepAttempt) -> Any:
        self.attempts.append(attempt)
        if self.error is not None:
            raise self.error
        return self.output


@unittest.skipUnless(URL and TOKEN, SKIP_REASON)
class LiveClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = HoldfastClient(URL, TOKEN, timeout=30)
        self.task_id = f"py-{self._testMethodName[5:30]}-{uuid.uuid4().hex[:10]}"

    def step(self, name: str = "draft", **extra: Any) -> dict[str, Any]:
        return {"taskId": self.task_id, "agent": "python-tests", "owner": "team:python", "step": name,
                "content": {"prompt": f"{name} for {self.task_id}"}, **extra}

    def assertStop(self, outcome: StepOutcome, code: str, reason: str | None = None) -> None:
        self.assertEqual(outcome.status, "stop", outcome)
        self.assertEqual(outcome.code, code, outcome)
        if reason is not None:
            self.assertEqual(outcome.reason, reason, outcome)

    def test_completes_then_a_redelivery_replays_without_calling_the_body(self) -> None:
        first = Body(({"text": "Dear customer"}, 1200))
        outcome = run_step(self.client, self.step(), first)
        self.assertEqual(outcome.status, "completed", outcome)
        self.assertEqual((outcome.result, outcome.attempt_number, outcome.task_status), ({"text": "Dear customer"}, 1, "active"))
        self.assertEqual(first.attempts[0].attempt_number, 1)
        self.assertTrue(first.attempts[0].key and first.attempts[0].fencing_token >= 1)

        again = Body(({"text": "a second model call"}, 999))
        replayed = run_step(self.client, self.step(), again)
        self.assertEqual((replayed.status, replayed.result), ("replayed", {"text": "Dear customer"}))
        self.assertEqual(again.attempts, [], "a replay must not call the body")

    def test_a_final_step_completes_the_task_and_a_dict_return_is_accepted(self) -> None:
        outcome = run_step(self.client, self.step("publish", final=True), Body({"result": "page-7", "cost_micros": 5}))
        self.assertEqual((outcome.status, outcome.result, outcome.task_status), ("completed", "page-7", "completed"))

    def test_transient_failure_retries_after_a_delay_then_attempt_two_completes(self) -> None:
        failing = Body(error=StepError("transient", "upstream answered 503", cost_micros=300))
        outcome = run_step(self.client, self.step(), failing)
        self.assertEqual((outcome.status, outcome.attempt_number, outcome.error_class), ("retry", 1, "transient"), outcome)
        self.assertIsInstance(outcome.delay_ms, int)
        self.assertGreaterEqual(number(outcome.delay_ms), 0)

        succeeding = Body(("second time lucky", 400))
        second = run_step(self.client, self.step(), succeeding)
        self.assertEqual([a.attempt_number for a in succeeding.attempts], [2])
        self.assertEqual((second.status, second.attempt_number, second.result), ("completed", 2, "second time lucky"), second)

    def test_rate_limited_retry_waits_at_least_retry_after(self) -> None:
        outcome = run_step(self.client, self.step(), Body(error=StepError("rate_limited", "429 from the model", retry_after_ms=7_000)))
        self.assertEqual((outcome.status, outcome.error_class), ("retry", "rate_limited"), outcome)
        self.assertGreaterEqual(number(outcome.delay_ms), 7_000)

    def test_permanent_failure_stops_with_a_dead_letter_and_a_hold(self) -> None:
        outcome = run_step(self.client, self.step(), Body(error=StepError("permanent", "400: the address is malformed")))
        self.assertStop(outcome, "DO_NOT_RETRY", "permanent_error")
        self.assertIsInstance(outcome.dead_letter_id, int)
        self.assertIsInstance(outcome.hold_id, int)
        self.assertTrue(outcome.detail)

        later = Body(("must not run", 0))
        self.assertEqual(run_step(self.client, self.step(), later).status, "stop")
        self.assertEqual(later.attempts, [])

    @unittest.skipUnless(SPENT_WAIT_QUEUE and SPENT_STOP_QUEUE, "set HOLDFAST_SPENT_WAIT_QUEUE and HOLDFAST_SPENT_STOP_QUEUE")
    def test_a_spent_fleet_budget_waits_or_stops_as_it_says_naming_itself(self) -> None:
        body = Body(("must not run", 0))
        waited = run_step(self.client, self.step(queue=SPENT_WAIT_QUEUE), body)
        self.assertEqual((waited.status, waited.code), ("wait", "BUDGET_EXHAUSTED"), waited)
        self.assertGreater(number(waited.retry_after_ms), 0)
        self.assertEqual((waited.budget or {}).get("scopeValue"), SPENT_WAIT_QUEUE)

        self.task_id = f"py-budget-stop-{uuid.uuid4().hex[:10]}"
        stopped = run_step(self.client, self.step(queue=SPENT_STOP_QUEUE), body)
        self.assertStop(stopped, "DO_NOT_RETRY", "budget_exhausted")
        self.assertEqual((stopped.budget or {}).get("scopeValue"), SPENT_STOP_QUEUE)
        self.assertIsInstance(stopped.dead_letter_id, int)
        self.assertEqual(body.attempts, [])

    def test_an_unknown_exception_is_never_retried(self) -> None:
        outcome = run_step(self.client, self.step(), Body(error=KeyError("customer_id")))
        self.assertStop(outcome, "DO_NOT_RETRY")
        self.assertIsInstance(outcome.dead_letter_id, int)

    def test_a_malformed_return_or_cost_is_a_bug_in_the_step(self) -> None:
        negative_cost = Body(("result", -5))
        self.assertStop(run_step(self.client, self.step(), negative_cost), "DO_NOT_RETRY")
        self.assertEqual(len(negative_cost.attempts), 1)
        self.task_id += "-b"  # that task is dead-lettered now
        bare_result = Body("no cost given")
        self.assertStop(run_step(self.client, self.step(), bare_result), "DO_NOT_RETRY")
        self.assertEqual(len(bare_result.attempts), 1)

    def test_a_result_that_cannot_be_stored_fails_the_step_as_permanent(self) -> None:
        too_large = run_step(self.client, self.step(), Body(("x" * 70_000, 10)))  # the API takes 64 KiB bodies
        self.assertStop(too_large, "DO_NOT_RETRY", "permanent_error")
        self.task_id += "-b"
        not_json = run_step(self.client, self.step(), Body((object(), 10)))
        self.assertStop(not_json, "DO_NOT_RETRY", "permanent_error")

    def test_a_running_step_makes_a_duplicate_wait(self) -> None:
        begun = self.client.begin_step(self.step())
        self.assertEqual(begun["decision"], "run")
        duplicate = Body(("duplicate", 0))
        outcome = run_step(self.client, self.step(), duplicate)
        self.assertEqual((outcome.status, outcome.code), ("wait", "KEY_IN_PROGRESS"), outcome)
        self.assertGreater(number(outcome.retry_after_ms), 0)
        self.assertEqual(duplicate.attempts, [])
        with self.assertRaises(HoldfastError) as raised:
            self.client.begin_step(self.step())
        error = raised.exception
        self.assertEqual((error.status, error.code, error.retryable, error.kind), (409, "KEY_IN_PROGRESS", True, "wait"))
        self.assertGreaterEqual(number(error.retry_after), 1)

    def test_changed_content_under_the_same_key_stops_with_a_mismatch(self) -> None:
        run_step(self.client, self.step(), Body(("first", 0)))
        changed = {**self.step(), "content": {"prompt": "something else"}}
        self.assertStop(run_step(self.client, changed, Body(("second", 0))), "KEY_PAYLOAD_MISMATCH", "payload_mismatch")

    def test_invalid_input_names_the_bad_fields(self) -> None:
        bad = {**self.step(), "owner": "nobody", "retryAllowance": -1, "colour": "blue"}
        for call in (lambda: self.client.begin_step(bad), lambda: run_step(self.client, bad, Body(("never", 0)))):
            with self.assertRaises(HoldfastError) as raised:
                call()
            error = raised.exception
            self.assertEqual((error.status, error.code, error.retryable, error.kind), (400, "INVALID_INPUT", False, "stop"))
            self.assertIn("owner", error.field_errors)
            self.assertIn("retryAllowance", error.field_errors)
            self.assertEqual(error.problem.get("fieldErrors"), error.field_errors)

    def test_a_failure_with_a_blank_error_text_is_refused(self) -> None:
        begun = self.client.begin_step(self.step())
        with self.assertRaises(HoldfastError) as raised:
            self.client.finish_step({"key": begun["key"], "fencingToken": begun["fencingToken"], "outcome": "failed", "errorClass": "transient", "errorText": " "})
        self.assertIn("errorText", raised.exception.field_errors)

    def test_a_finish_never_begun_is_not_found(self) -> None:
        with self.assertRaises(HoldfastError) as raised:
            self.client.finish_step({"key": f"no-such-key-{uuid.uuid4().hex}", "fencingToken": 1, "outcome": "succeeded", "result": None})
        self.assertEqual((raised.exception.status, raised.exception.code), (404, "NOT_FOUND"))

    def test_a_superseded_attempt_cannot_finish(self) -> None:
        first = self.client.begin_step(self.step(inProgressTtlMs=50))
        time.sleep(0.1)  # the claim's expiry runs on PostgreSQL's clock: no way to move it from here
        second = self.client.begin_step(self.step(inProgressTtlMs=50))
        self.assertEqual(second["decision"], "run", second)
        self.assertGreater(second["fencingToken"], first["fencingToken"])
        with self.assertRaises(HoldfastError) as raised:
            self.client.finish_step({"key": first["key"], "fencingToken": first["fencingToken"], "outcome": "succeeded", "result": "late"})
        self.assertEqual((raised.exception.status, raised.exception.code), (409, "STALE_TOKEN"))
        finished = self.client.finish_step({"key": second["key"], "fencingToken": second["fencingToken"], "outcome": "succeeded", "result": "on time"})
        self.assertEqual(finished["decision"], "completed")

    def test_an_expired_claim_on_a_non_idempotent_downstream_is_uncertain(self) -> None:
        charge = self.step("charge_card", downstreamIdempotent=False, inProgressTtlMs=50)
        begun = self.client.begin_step(charge)  # the worker dies after this: no finish
        self.assertEqual(begun["decision"], "run")
        time.sleep(0.1)
        redelivered = Body(("charged twice", 0))
        outcome = run_step(self.client, charge, redelivered)
        self.assertStop(outcome, "UNCERTAIN_OUTCOME", "uncertain_outcome")
        self.assertIsInstance(outcome.hold_id, int)
        self.assertEqual(redelivered.attempts, [], "an uncertain step must never be repeated")

    def test_finish_task_ends_the_task_and_is_idempotent(self) -> None:
        run_step(self.client, self.step(), Body(("drafted", 0)))
        self.assertEqual(self.client.finish_task(self.task_id, "completed"), {"taskId": self.task_id, "status": "completed", "changed": True})
        self.assertFalse(self.client.finish_task(self.task_id, "completed")["changed"])
        later = Body(("must not run", 0))
        self.assertStop(run_step(self.client, self.step("send"), later), "TASK_FINISHED", "task_finished")
        self.assertEqual(later.attempts, [])

    def test_an_idempotency_key_returns_the_first_answer(self) -> None:
        run_step(self.client, self.step(), Body(("drafted", 0)))
        header = f"finish-{self.task_id}"
        first = self.client.finish_task(self.task_id, "discarded", idempotency_key=header)
        self.assertEqual(self.client.finish_task(self.task_id, "discarded", idempotency_key=header), first)
        self.assertTrue(first["changed"])

    def test_claim_complete_and_fail_keys(self) -> None:
        key = f"{self.task_id}:send_email"
        claim = {"key": key, "requestHash": "sha-of-the-email", "taskId": self.task_id, "step": "send_email"}
        acquired = self.client.claim_key(claim)
        self.assertEqual((acquired["outcome"], acquired["attemptNumber"]), ("acquired", 1))
        self.client.fail_key(key, acquired["fencingToken"], "timeout", "SMTP timed out after 30 s")
        again = self.client.claim_key(claim)
        self.assertEqual((again["outcome"], again["attemptNumber"]), ("acquired", 2))
        with self.assertRaises(HoldfastError) as raised:
            self.client.complete_key(key, acquired["fencingToken"], {"messageId": "stale"})
        self.assertEqual(raised.exception.code, "STALE_TOKEN")
        self.client.complete_key(key, again["fencingToken"], {"messageId": "m-1"})
        self.assertEqual(self.client.claim_key(claim), {"outcome": "replay", "key": key, "result": {"messageId": "m-1"}})

    def test_record_attempt_and_its_redelivery(self) -> None:
        finished = datetime.now(timezone.utc).replace(microsecond=0)
        attempt = {"taskId": self.task_id, "agent": "python-tests", "step": "summarise", "attemptNumber": 1,
                   "startedAt": finished - timedelta(seconds=2), "finishedAt": finished, "outcome": "succeeded", "costMicros": 250}
        self.assertFalse(self.client.record_attempt(attempt)["duplicate"])
        self.assertTrue(self.client.record_attempt(attempt)["duplicate"])

    def test_tokens_and_a_model_instead_of_a_cost_are_priced(self) -> None:
        usage = {"input_tokens": 10_000, "output_tokens": 1_000}
        outcome = run_step(self.client, self.step(), Body({"result": "summary", "usage": usage, "model": "gpt-4o", "provider": "openai"}))
        self.assertEqual(outcome.status, "completed", outcome)
        finished = datetime.now(timezone.utc).replace(microsecond=0)
        attempt = {"taskId": self.task_id + "-report", "agent": "python-tests", "step": "summarise", "attemptNumber": 1,
                   "startedAt": finished - timedelta(seconds=2), "finishedAt": finished, "outcome": "succeeded",
                   "usage": {"inputTokens": 10_000, "outputTokens": 1_000}, "model": "gpt-4o", "provider": "openai"}
        recorded = self.client.record_attempt(attempt)["attempt"]
        # 10,000 x 2.50 $ + 1,000 x 10 $ a million tokens (gpt-4o in the pinned price table).
        self.assertEqual((recorded["costMicros"], recorded["costSource"]), (35_000, "priced"))

    def test_a_bad_token_is_unauthenticated(self) -> None:
        with self.assertRaises(HoldfastError) as raised:
            HoldfastClient(URL, "hf_not-a-real-token-at-all").begin_step(self.step())
        self.assertEqual((raised.exception.status, raised.exception.code), (401, "UNAUTHENTICATED"))


if __name__ == "__main__":
    unittest.main()
