"""Where the Drafft sample data lives: ``../shared/fixtures/drafft`` beside the repository.

The files are test data only; tests read them in place and never copy them into the repo.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DRAFFT_FIXTURES = REPO_ROOT.parent / "shared" / "fixtures" / "drafft"
DRAFFT_PROJECTS = DRAFFT_FIXTURES / "projects"
DRAFFT_GAME_EXPORTS = DRAFFT_FIXTURES / "game-exports"

