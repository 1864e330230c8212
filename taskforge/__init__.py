"""taskforge: turn an agentic model's evaluation failures into verified training tasks.

The project's folders (`agents/`, `builders/`, … at the top of the checkout) install as
subpackages of this one (`taskforge.agents`, `taskforge.builders`, …): see `setup.py`.
"""
