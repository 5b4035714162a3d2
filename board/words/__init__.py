"""Words and numbers for people (no Streamlit, no plotly): the one number formatter
(:mod:`board.words.fmt`) and the board's plain verdict (:mod:`board.words.verdict`).
Every layer that shows something to a person (charts, exports, pages, the CLI) uses it."""
