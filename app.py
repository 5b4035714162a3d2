"""evalboard entry point: page config, shared sidebar, navigation. Pages stay thin."""

import streamlit as st

from board import state

st.set_page_config(page_title="evalboard", page_icon=":material/dashboard:", layout="wide", initial_sidebar_state="expanded")

state.sidebar()

pages = {
    "Decide": [
        st.Page("pages/board.py", title="Board", icon=":material/dashboard:", default=True, url_path="board"),
        st.Page("pages/threshold_value.py", title="Threshold–value", icon=":material/show_chart:", url_path="threshold"),
    ],
    "Inputs": [
        st.Page("pages/value_table.py", title="Value table", icon=":material/payments:", url_path="value-table"),
        st.Page("pages/upload.py", title="Upload", icon=":material/upload_file:", url_path="upload"),
        st.Page("pages/datasets.py", title="Datasets", icon=":material/folder_open:", url_path="datasets"),
    ],
}
st.navigation(pages).run()
