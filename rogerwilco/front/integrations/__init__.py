"""RW1 in the frameworks agents are built with, each a thin layer over :mod:`rogerwilco.front.tools`.

Each integration lives in its own module and needs its own extra; importing this package needs nothing.
"""
