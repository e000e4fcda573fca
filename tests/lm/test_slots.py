"""Requests sent to the embedded runtime's slot that holds their prefix
(:mod:`play2prompt.lm.slots`): the choice, the waiting, what the runtime is sent, and (real
default model) that a second request with the same new prompt reads the first's cache."""

import asyncio

import pytest

from play2prompt.errors import LMError
from play2prompt.lm._base import ChatRequest
from play2prompt.lm.embedded import EmbeddedLM
from play2prompt.lm.slots import SlotScheduler, common_prefix, prompt_text
from tests.lm.fake_runtime import Server, ok

SYSTEM = "You write the message a real person would send. " * 20   # about 1,000 characters


def ask(user: str, system: str = SYSTEM) -> ChatRequest:
    return ChatRequest(({"role": "system", "content": system}, {"role": "user", "content": user}),
                       temperature=0.0, max_tokens=8)


@pytest.mark.parametrize("a, b, n", [("", "x", 0), ("abc", "abd", 2), ("abc", "abc", 3),
                                     ("abc", "abcdef", 3), ("x" * 999 + "a", "x" * 999 + "b", 999)])
def test_the_common_prefix(a, b, n):
    assert common_prefix(a, b) == n == common_prefix(b, a)


def test_a_request_goes_to_the_free_slot_holding_most_of_its_prefix():
    slots = SlotScheduler(3, wait_chars=100)
    for i, held in enumerate(["A" * 50, "B" * 300, ""]):
        slots.take(i, held)
        slots._state[i].busy = False
    assert slots.pick("B" * 200 + "new") == (1, None)
    assert slots.pick("A" * 20) == (0, None)
    assert slots.pick("C") == (0, None)   # none shares anything: the least recently given out


def test_it_waits_for_a_busy_slot_only_when_that_holds_much_more_of_its_prefix():
    slots = SlotScheduler(2, wait_chars=100)
    slots.take(0, SYSTEM + "first")
    assert slots.pick(SYSTEM + "second") == (None, 0)          # slot 0 holds 1,000 more
    assert slots.pick(SYSTEM[:50] + "short") == (1, None)       # 50 more: not worth a wait
    slots._state[0].waiting = 1
    assert slots.pick(SYSTEM + "third") == (1, None)           # one waits; the next goes on
    slots.take(1, "other")
    assert slots.pick("anything") == (None, None)               # every slot busy


def test_identical_prompts_go_one_after_the_other_to_one_slot_and_others_pass_them():
    async def scenario():
        slots = SlotScheduler(2, wait_chars=100)
        order = []

        async def request(name, text, seconds):
            slot = await slots.acquire(text)
            order.append((name, slot))
            await asyncio.sleep(seconds)
            await slots.release(slot, text + " reply")

        await asyncio.gather(request("a1", SYSTEM + "a", 0.05),
                             request("a2", SYSTEM + "a", 0.01),
                             request("b", "unrelated", 0.01))
        return order

    order = asyncio.run(scenario())
    assert order[0] == ("a1", 0) and ("b", 1) in order
    assert order[-1] == ("a2", 0)       # waited for a1's slot, though slot 1 was free first


def test_a_batch_sharing_a_new_prefix_queues_one_request_on_its_slot_not_all():
    async def scenario():
        slots = SlotScheduler(2, wait_chars=100)
        got = []

        async def request(i):
            slot = await slots.acquire(SYSTEM + str(i))
            got.append((i, slot))
            await asyncio.sleep(0.02)
            await slots.release(slot, SYSTEM + str(i) + " reply")

        await asyncio.gather(*(request(i) for i in range(6)))
        return got

    got = asyncio.run(scenario())
    assert got[:2] == [(0, 0), (2, 1)]          # 1 waits for slot 0; 2 computes it in slot 1
    assert {slot for _, slot in got[2:]} == {0, 1}


def test_a_wait_that_is_not_a_number_is_one_clear_error(monkeypatch):
    monkeypatch.setenv("P2P_EMBEDDED_SLOT_WAIT", "lots")
    with pytest.raises(LMError, match="P2P_EMBEDDED_SLOT_WAIT must be a number"):
        SlotScheduler(2)
    monkeypatch.setenv("P2P_EMBEDDED_SLOT_WAIT", "80")
    assert SlotScheduler(2).wait_chars == 80


def test_a_failed_request_leaves_its_slot_holding_nothing_known():
    async def scenario():
        slots = SlotScheduler(2, wait_chars=100)
        slot = await slots.acquire(SYSTEM)
        await slots.release(slot, None)
        return slots.pick(SYSTEM + "again")[0], slots._state[slot].held

    assert asyncio.run(scenario()) == (1, "")    # no prefix known: the least recent slot


def test_the_runtime_is_told_the_slot_and_sent_the_same_request_otherwise():
    lm = EmbeddedLM("smollm2-135m", parallel=2, slot_affinity=True)
    lm._server = Server([ok("one"), ok("two")])
    asyncio.run(lm.chat(ask("first")))
    asyncio.run(lm.chat(ask("second")))
    first, second = lm._server.bodies
    assert lm.max_concurrency == 4     # requests waiting for a slot leave the other to the rest
    assert first["id_slot"] == second["id_slot"] == 0     # the second holds the first's prefix
    assert {k: v for k, v in first.items() if k != "id_slot"}["messages"][1]["content"] == "first"
    assert prompt_text(first).startswith("<system>" + SYSTEM)


@pytest.mark.parametrize("parallel, affinity", [(2, False), (1, True)])
def test_no_slot_is_chosen_when_switched_off_or_there_is_one(parallel, affinity):
    lm = EmbeddedLM("smollm2-135m", parallel=parallel, slot_affinity=affinity)
    lm._server = Server([ok("one")])
    asyncio.run(lm.chat(ask("first")))
    assert "id_slot" not in lm._server.bodies[0]
    assert lm.max_concurrency == parallel


def test_the_real_model_reads_the_cache_the_same_prompt_left_in_its_slot(smol_file):
    """Two new requests sharing a long system prompt sent together: chosen here, the second
    waits for the first's slot and reads that prompt from its cache; left to the runtime, both
    compute it (the reason for the scheduler)."""
    def cached(affinity: bool) -> list[int]:
        lm = EmbeddedLM(str(smol_file), parallel=2, slot_affinity=affinity)
        try:
            async def both():
                return await asyncio.gather(lm.chat(ask("Say hi.")), lm.chat(ask("Say bye.")))
            return sorted(r.usage.cached_tokens for r in asyncio.run(both()))
        finally:
            lm.close()

    chosen, left = cached(True), cached(False)
    assert chosen[0] == 0 and chosen[1] > 100
    assert left == [0, 0]
