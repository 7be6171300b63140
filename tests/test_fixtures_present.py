"""The sample data the acceptance tests read must be there: a missing ../shared fails, never skips."""

from tests.support.fixtures import DRAFFT_GAME_EXPORTS, DRAFFT_PROJECTS


def test_all_seven_drafft_sample_projects_are_present():
    names = sorted(p.relative_to(DRAFFT_PROJECTS).as_posix() for p in DRAFFT_PROJECTS.glob("*/*.json"))
    assert names == [
        "v1/one-bullet.json",
        "v1/the-goddess-of-fate.partially-migrated.json",
        "v1/the-goddess-of-fate.v1.json",
        "v2/tgof.json",
        "v2/tgof_v1.0.21.json",
        "v2/tgof_v1.json",
        "v2/the-garden-of-fading-memories.json",
    ]


def test_both_drafft_game_exports_are_present():
    assert len(list(DRAFFT_GAME_EXPORTS.glob("*.game-export.json"))) == 2
