"""Application services of evalboard: storage, charts, export, CLI, demo data."""
