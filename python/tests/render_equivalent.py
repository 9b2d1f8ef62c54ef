"""The Java ``render`` workload's memory behaviour on an algan-style arena: the same scopes, params and
tensor shapes per batch (scene_inputs, batch/{output, raster, tiles, blur, tonemap}), without the
pixels. Usage: render_equivalent.py WIDTH HEIGHT TRIANGLES BATCHES..."""

import sys

import arenascope
from algan.utils.memory_utils import ManualMemory, float32, int32, uint8

TILE = 16
width, height, tris = (int(a) for a in sys.argv[1:4])
batches = [int(a) for a in sys.argv[4:]]
tiles = -(-width // TILE) * -(-height // TILE)
arena = ManualMemory(num_bytes=16 << 20)

with arena.temp(True):
    with arena.scope("scene_inputs", num_triangles=tris):
        arena.get_tensor((tris, 9), float32, persist=True)
        arena.get_tensor((tris, 3), float32, persist=True)
    for i, frames in enumerate(batches):
        with arena.temp(), arena.scope("batch", frames=frames):
            with arena.scope("output", frames=frames):
                arena.get_tensor((frames, height, width, 4), uint8)
                arena.get_tensor((frames, height, width), float32)
            with arena.scope("raster", instances=frames * tris):
                arena.get_tensor((frames, tris, 16), float32)
            with arena.scope("tiles", pool=frames * tiles):
                arena.get_tensor((frames, tiles, 2), int32)
                fragments = frames * tris * 2 + 37 * i * i + 5   # what the COUNT pass would find
                arena.note_scope_params(fragments=fragments)
                arena.get_tensor((max(1, fragments),), int32)
            with arena.temp(), arena.scope("blur", frames=frames):
                arena.get_tensor((frames, height, width, 3), float32)
            with arena.temp(), arena.scope("tonemap", frames=frames):
                arena.get_tensor((frames, height, width), float32)
                arena.get_tensor((frames, 256), int32)
