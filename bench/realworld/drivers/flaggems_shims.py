"""pytest plugin: FlagGems imports with sqlalchemy stubbed where the machine
lacks it (its tuning cache's database; see shims.py)."""
import shims

shims.stub_packages(["sqlalchemy"])
