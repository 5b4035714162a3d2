"""Streamlit glue shared by the views: session/URL state, widgets, page helpers. The only board package that imports streamlit."""
