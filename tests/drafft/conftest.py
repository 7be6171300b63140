"""The Drafft import tests share the project suite's fixture locator and project manager."""

from tests.project.conftest import (  # noqa: F401
    FIXTURE_FILES,
    fixture_docs,
    fixture_dump,
    fixture_path,
    manager,
    username,
)
