"""The diagnosis batch's collector pause: shared by nested and concurrent blocks, the earlier state restored."""

from __future__ import annotations

import gc
import threading

import pytest

from taskforge.flows.gc_pause import gc_paused


@pytest.fixture(autouse=True)
def collector_enabled():
    gc.enable()
    yield
    gc.enable()


def test_nested_blocks_share_one_pause():
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "the inner block must not end the outer block's pause"
    assert gc.isenabled()


def test_collector_comes_back_after_an_error():
    with pytest.raises(RuntimeError):
        with gc_paused():
            raise RuntimeError("batch failed")
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled():
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_concurrent_blocks_keep_the_pause_until_the_last_ends():
    first_inside, second_done, states = threading.Event(), threading.Event(), []

    def long_block():
        with gc_paused():
            first_inside.set()
            second_done.wait(10)
            states.append(gc.isenabled())

    def short_block():
        first_inside.wait(10)
        with gc_paused():
            pass
        second_done.set()

    threads = [threading.Thread(target=long_block), threading.Thread(target=short_block)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert states == [False], "the shorter block ending must not turn the collector on under the longer one"
    assert gc.isenabled()
