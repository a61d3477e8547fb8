"""The property catalogue: what must hold of the model, each property carrying its requirement ids.

Properties read the model's state and step record; they import no engine.
"""
