"""heliaAOT-style plans: export_plan from a pydantic-style model (``model_dump()``, snake_case, enum
keys) and from a duck-typed object; the file opens in ``arenascope plan``."""

import enum
import json

import arenascope
from conftest import java


class MemoryType(str, enum.Enum):
    MRAM = "MRAM"
    SRAM = "SRAM"
    DTCM = "DTCM"


class Role(str, enum.Enum):
    SCRATCH = "scratch"
    PERSISTENT = "persistent"
    CONSTANT = "constant"


class Model:
    """What pydantic's BaseModel gives: model_dump() of the fields, nested models and enums as they are."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def model_dump(self):
        def dump(v):
            if isinstance(v, Model):
                return v.model_dump()
            if isinstance(v, dict):
                return {k: dump(x) for k, x in v.items()}
            return v
        return {k: dump(v) for k, v in self.__dict__.items()}


def binding(role, memory, offset, source=None):
    return Model(role=role, memory=memory, offset=offset, source_memory=source or memory)


def helia_plan():
    t = {}
    t["input"] = Model(memory=MemoryType.SRAM, offset=0, size=1024, binding=binding(Role.SCRATCH, MemoryType.SRAM, 0))
    t["act1"] = Model(memory=MemoryType.SRAM, offset=1024, size=2048, binding=binding(Role.SCRATCH, MemoryType.SRAM, 1024))
    t["act2"] = Model(memory=MemoryType.SRAM, offset=0, size=1024, binding=binding(Role.SCRATCH, MemoryType.SRAM, 0))
    t["state"] = Model(memory=MemoryType.DTCM, offset=0, size=256, binding=binding(Role.PERSISTENT, MemoryType.DTCM, 0))
    t["w_cold"] = Model(memory=MemoryType.MRAM, offset=0, size=4096, binding=binding(Role.CONSTANT, MemoryType.MRAM, 0))
    t["w_hot"] = Model(memory=MemoryType.DTCM, offset=0, size=512,
                       binding=binding(Role.CONSTANT, MemoryType.DTCM, 0, MemoryType.MRAM))
    usage = lambda mem, size, src=None: Model(memory=mem, total_size=size, source_memory=src or mem)  # noqa: E731
    return Model(
        tensor_allocs=t,
        arena_usages={MemoryType.SRAM: usage(MemoryType.SRAM, 3072)},
        persistent_arenas={MemoryType.DTCM: usage(MemoryType.DTCM, 256)},
        constant_arenas={MemoryType.MRAM: usage(MemoryType.MRAM, 4096),
                         MemoryType.DTCM: usage(MemoryType.DTCM, 512, MemoryType.MRAM)},
        tensor_lifetimes={"input": Model(first_step=0, last_step=0), "act1": Model(first_step=0, last_step=1),
                          "act2": Model(first_step=1, last_step=2)})


class Ctx:
    def __init__(self, plan):
        self.memory_plan = plan


def test_pydantic_dump_opens_in_arenascope_plan(tmp):
    path = tmp / "model.plan.json"
    arenascope.export_plan(Ctx(helia_plan()), path, name="kws")
    d = json.loads(path.read_text())
    assert d["tensor_allocs"]["state"]["binding"]["role"] == "persistent"
    assert d["constant_arenas"]["DTCM"]["source_memory"] == "MRAM"
    p = java(["plan", "--input", str(path), "--strategy", "greedy"])
    assert "lower bound" in p.stdout.lower() or "height" in p.stdout.lower(), p.stdout


def test_a_raw_model_dump_file_opens_too(tmp):
    # what `json.dump(plan.model_dump(mode="json"), f)` writes, without the client
    raw = json.loads(json.dumps(helia_plan().model_dump(), default=lambda e: e.value))
    path = tmp / "raw.json"
    path.write_text(json.dumps(raw))
    java(["plan", "--input", str(path), "--strategy", "greedy"])


def test_a_broken_dump_is_one_line_exit_2(tmp):
    d = arenascope._plan.plan_dict(helia_plan())
    d["tensor_allocs"]["act1"]["offset"] = 8   # disagrees with its binding
    path = tmp / "bad.json"
    path.write_text(json.dumps(d))
    p = java(["plan", "--input", str(path)], check=False)
    assert p.returncode == 2
    assert "act1" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
