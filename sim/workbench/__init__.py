"""``simulate workbench``: a local web page to edit a game's cards and rules and watch the
balance change against the baseline, live, on common random numbers.

Its layer sits between ``sim.api`` and ``sim.cli``: it uses the API and the layers below
it, and only the CLI imports it.

- ``inputs.py``: the page's edits as files (card CSV, rules YAML), checked by the same
  loaders as the CLI (``Game.configure``), errors mapped back to a cell or an option;
  the equivalent ``simulate`` command lines; paths the page may name (start directory only).
- ``compare.py``: one comparison: baseline and edit on the same seed and game indices,
  chunk by chunk into two run directories per player count, the paired differences of
  every headline and the ``--until-ci`` stopping rule on them.
- ``app.py``: the Starlette application: the page and its JSON routes.
- ``guard.py``: what reaches a route (the Host/Origin guard, the body cap, bounded JSON).
- ``bench.py``: the server's state: its settings, each game's baseline, the comparisons
  of every page and their temporary folder, bounded.
- ``server.py``: binds the socket and runs uvicorn (``simulate workbench``).
- ``static/``: the page (HTML, CSS, vanilla JS; nothing loaded from elsewhere).
"""
