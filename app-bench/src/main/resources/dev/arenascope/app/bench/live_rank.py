"""One Python rank of the live job probe (LiveJobProbe), run as ``python -m arenascope run --live HOST:PORT
--name NAME live_rank.py STEPS PAUSE_MS``: STEPS training-like steps on an algan-style arena, each after a
``ProfilerStep#k`` marker (the step a rank's peak falls in), with the activations of a few micro-batches
held across the step, then a pause of PAUSE_MS, so the process streams step after step as a rank of a
job does. The client's own line on stderr says how many events it wrote and the receiver confirmed."""

import sys
import time

import arenascope
from algan.utils.memory_utils import ManualMemory, float32, int32

steps, pause_ms = int(sys.argv[1]), int(sys.argv[2])
arena = ManualMemory(num_bytes=64 << 20)

with arena.temp(True):
    with arena.scope("weights", layers=4):
        for layer in range(4):
            arena.get_tensor((256, 256), float32, persist=True)
    for step in range(steps):
        arenascope.marker("ProfilerStep#%d" % step)
        micro = 2 + step % 3
        with arena.temp(), arena.scope("step", micro_batches=micro):
            for m in range(micro):
                with arena.scope("forward", micro_batch=m):
                    arena.get_tensor((micro, 64, 256), float32)
                    arena.get_tensor((micro, 64), int32)
            with arena.temp(), arena.scope("backward", micro_batches=micro):
                arena.get_tensor((micro, 64, 256), float32)
        if pause_ms > 0:
            time.sleep(pause_ms / 1000.0)
