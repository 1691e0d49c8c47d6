from .front.quick import run

run()
