"""The fabric model: design intent, builders, metrics. Pure Python: nothing here imports Qt."""
