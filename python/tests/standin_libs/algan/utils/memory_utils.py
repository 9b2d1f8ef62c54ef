from standins import DType, ManualMemory, Tensor, float32, int32, uint8  # noqa: F401  (stand-in, see tests/standins.py)
