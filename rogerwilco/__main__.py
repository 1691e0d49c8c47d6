from .front.cli import run

run()
