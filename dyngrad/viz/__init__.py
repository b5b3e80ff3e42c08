"""Pictures and explanations of autograd graphs.

* ``make_dot(var, params=None, show_attrs=False, show_saved=False)``: torchviz's picture.
* ``backward_trace(loss)``: one backward, drawn with each edge coloured by its gradient
  (SVG and a standalone zoomable HTML page).
* ``explain(loss, inputs=None)``: the graph as text and a "why is this .grad None / zero" check.

Drawing needs the ``graphviz`` package (``pip install 'dyngrad[viz]'``) and rendering needs
Graphviz's ``dot`` program; ``explain`` needs neither.
"""

from .dot import make_dot
from .explain import explain
from .trace import backward_trace

__all__ = ["make_dot", "backward_trace", "explain"]
