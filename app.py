"""evalboard entry point: page config, shared sidebar, navigation. Pages stay thin."""

import streamlit as st

from board import drift_view, state

st.set_page_config(page_title="evalboard", page_icon=":material/dashboard:", layout="wide", initial_sidebar_state="expanded")

state.sidebar()

pages = {
    "Decide": [
        st.Page("views/board.py", title="Board", icon=":material/dashboard:", default=True, url_path="board"),
        st.Page("views/threshold_value.py", title="Threshold–value", icon=":material/show_chart:", url_path="threshold"),
        st.Page("views/uncertainty.py", title="Uncertainty", icon=":material/error_med:", url_path="uncertainty"),
        st.Page("views/calibration.py", title="Calibration", icon=":material/tune:", url_path="calibration"),
        st.Page("views/drift.py", title="Drift", icon=":material/traffic:", url_path="drift"),
        st.Page("views/stability.py", title="Stability", icon=":material/stacked_line_chart:", url_path="stability"),
        st.Page("views/data_conditions.py", title="Data conditions", icon=":material/dataset:", url_path="data-conditions"),
    ],
    "Inputs": [
        st.Page("views/value_table.py", title="Value table", icon=":material/payments:", url_path="value-table"),
        st.Page("views/upload.py", title="Upload", icon=":material/upload_file:", url_path="upload"),
        st.Page("views/datasets.py", title="Datasets", icon=":material/folder_open:", url_path="datasets"),
    ],
}
page = st.navigation(pages)
drift_view.banner()  # on every page while a drift light is red (after navigation, so it can link the Drift page)
page.run()
