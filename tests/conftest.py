import os
import tempfile

# Tests never touch the repository's data/ folder: every run gets its own store.
os.environ.setdefault("EVALBOARD_DATA_DIR", tempfile.mkdtemp(prefix="evalboard-test-"))
os.environ.pop("EVALBOARD_DB_URL", None)
