"""The notebook widget: the explorer's front end inside Jupyter or VS Code, through anywidget.

The widget's ``data`` trait is :meth:`Instance.describe`; the front end's requests
arrive as custom messages ``{"id", "request"}`` and are answered by
:func:`attnio.explorer.api.answer` in the kernel, as ``{"id", "reply"}`` or
``{"id", "error"}``.
"""

from __future__ import annotations

from attnio.pebble import Dag
from attnio.pebble.errors import PebbleError

from .api import answer
from .errors import ExplorerError, NotebookMissingError
from .instance import Instance
from .page import asset

__all__ = ["explore"]


def _widget_class() -> type:
    try:
        import anywidget
        import traitlets
    except ImportError:
        raise NotebookMissingError() from None

    class ExplorerWidget(anywidget.AnyWidget):
        """The explorer as a notebook widget (see :func:`explore`)."""

        _esm = asset("explorer.js")
        _css = asset("explorer.css")
        data = traitlets.Dict().tag(sync=True)

        def __init__(self, instance: Instance, M: int, variant: str) -> None:
            super().__init__(data={**instance.describe(M, variant), "host": "widget"})
            self.instance = instance
            self.on_msg(self._answer)

        def _answer(self, _widget: object, content: dict, _buffers: object) -> None:
            if not isinstance(content, dict) or "id" not in content:
                return
            try:
                reply = {
                    "id": content["id"],
                    "reply": answer(self.instance, content.get("request")),
                }
            except (ExplorerError, PebbleError) as error:
                reply = {"id": content["id"], "error": str(error)}
            self.send(reply)

    return ExplorerWidget


def explore(
    dag: str | Dag = "attention-forward",
    n: int | None = 2,
    d: int | None = 1,
    *,
    M: int | None = None,
    variant: str = "standard",
    tree: str = "chain",
    mask: str = "causal",
    degree: int = 2,
    exact_seconds: float = 20.0,
):
    """Return a notebook widget that draws a DAG and plays the red-blue pebble game on it.

    Parameters
    ----------
    dag : str or Dag
        A builder family (one of :data:`attnio.pebble.KINDS`, sized by ``n`` and ``d``)
        or any :class:`~attnio.pebble.Dag`.
    n, d : int
        Sequence length and head dimension (builder families only).
    M : int, optional
        Red pebbles shown first (default: one more than the minimum).
    variant : {"standard", "oneshot"}
        The game variant.
    tree, mask, degree
        Builder options (see :func:`attnio.pebble.build`).
    exact_seconds : float
        Time limit of one exact solve.

    Raises
    ------
    NotebookMissingError
        anywidget is not installed (``pip install 'attnio[notebook]'``).
    TooLargeToDrawError
        The DAG has more vertices than the explorer draws.

    References
    ----------
    HK81 (the game), PW20 (one-shot variant).
    """
    widget = _widget_class()
    if isinstance(dag, Dag):
        instance = Instance.from_dag(dag, exact_seconds=exact_seconds)
    else:
        instance = Instance.from_builder(
            dag, n, d, tree=tree, mask=mask, degree=degree, exact_seconds=exact_seconds
        )  # type: ignore[arg-type]
    memory = instance.dag.min_memory + 1 if M is None else M
    memory = min(memory, instance.max_memory)
    return widget(instance, memory, variant)
