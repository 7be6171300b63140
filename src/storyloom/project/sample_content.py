"""The text of the built-in sample project, "The Lighthouse Keeper" (see :mod:`storyloom.project.sample`).

The story: Wren Hale, an inspector of the Lighthouse Board, lands on Gullrock the night after its
lamp went dark and its keeper, Edda Vane, vanished. Tobias Marsh, the assistant keeper, doused
the lamp for wreckers and locked Edda in the oil store when she caught him. With two clues the
inspector finds her and relights the lamp (The Light Restored); without them, the morning boat
leaves a dark tower behind (The Dark Tide).

Only data lives here: scripts, design pages, property text, variables and scenarios, the map's
drawing. Placeholders ``{name}`` in the design pages are document ids filled in by the builder.
"""

from __future__ import annotations

# -- Variables (three languages: YAML, HJSON, TOML) ---------------------------------------------

PLAYER_VARIABLES = """\
# The inspector: the player character.
_sid: player
name: Wren Hale
clues: 0
lastQuestion: ""
inventory:
  - oil lantern
accusation: null
"""

ISLAND_VARIABLES = """\
// Gullrock: the island, its weather and its lighthouse.
_sid: island
storm: true
tide: rising
hour: 20
lampLit: false
lampRoomVisited: false
keeperFound: false
clues: {
  logbook: false
  wick: false
  coveLantern: false
}
"""

TRUST_VARIABLES = """\
# How far each islander trusts the inspector, from 0 (not at all) to 5.
_sid = "trust"
tobias = 2
maud = 1
"""

# -- Scenarios: diffs over the defaults, keyed by _sid -------------------------------------------

SCENARIO_MIDPOINT = """\
// Start the interview with two clues already in hand: the good ending is one question away.
player: {
  clues: 2
  inventory: ["oil lantern", "keeper's logbook"]
}
island: {
  hour: 23
  clues: {
    logbook: true
    wick: true
  }
}
"""

SCENARIO_MAUD_TRUSTS = """\
# Maud tells what she saw in the cove on the first visit.
trust:
  maud: 3
"""

SCENARIO_CALM_NIGHT = """\
// The storm has blown over: Maud's other greeting, and a falling tide.
island: {
  storm: false
  tide: falling
}
"""

# -- Scripts -------------------------------------------------------------------------------------

SCRIPT_ARRIVAL = """\
// Act 1, scene 1: the mail boat leaves Wren on Gullrock's jetty at dusk.
<CutTo("gullrock_jetty")>
<PlayMusic("low_tide", 0.4)> {"loop": true, "fade": 2.0}
<FadeIn(1.5)>
::Narrator:: The lamp of Gullrock has been dark for a night and a day.
[#arr_001] ::Wren Hale:: ${v.player.name}, Lighthouse Board. I'm here about the lamp. [determined]
[#arr_002] ::Maud Pell:: Then you're a day late and a keeper short, love. [worried]
@if v.island.storm
    [#arr_003] ::Maud Pell:: Mind the steps. In weather like this they're slick as eels. [worried]
@else
    [#arr_004] ::Maud Pell:: Quiet sea tonight, at least. I never trust a quiet sea. [neutral]
@endif
[#arr_005] ::Wren Hale:: Where is the keeper? Where is Edda Vane? [neutral]
[#arr_006] ::Maud Pell:: Not since she rang the noon bell yesterday. Ask the boy, Tobias. He's in the tower. [worried]
@set v.island.hour = 21
The wind drops for a moment. Somewhere below the cliff, a shutter bangs.
<ShowObjective("find_keeper")> // the quest "Find the keeper"
"""

SCRIPT_LAMP_ROOM = """\
// Act 1, scene 2: the top of the tower. The lens is clean; the lamp is cold.
<CutTo("lamp_room")>
<PlaySound("wind_howl", 0.8)>
::Narrator:: One hundred and twelve steps. The lens is polished. The lamp is cold.
[#lamp_001] ::Tobias Marsh:: You'll be from the Board. I didn't put it out, if that's what you're thinking. [defensive]
[#lamp_002] ::Wren Hale:: Nobody said you did. When did you last see Miss Vane? [neutral]
[#lamp_003] ::Tobias Marsh:: Last night. She went down to check the oil store. She never came back up. [nervous]
@if v.trust.tobias >= 3
    [#lamp_004] ::Tobias Marsh:: I looked for her. I swear I did. [ashamed]
@else
    [#lamp_005] ::Tobias Marsh:: I had the lamp to mind. Someone had to. [defensive]
@endif
[#lamp_006] ::Wren Hale:: And yet the lamp went out. [determined] {"camera": "close_up"}
@set v.island.lampRoomVisited = true
It is ${v.island.hour} o'clock. The tide is ${v.island.tide}.
"""

SCRIPT_INTERVIEW_OPENS = """\
// Interview: the first exchange, before Wren chooses where to press.
[#int_001] ::Tobias Marsh:: Ask what you like. I've nothing to hide. [defensive]
[#int_002] ::Wren Hale:: Then you won't mind if I look around. [determined]
"""

SCRIPT_LOGBOOK = """\
// Clue 1: the keeper's logbook, last page missing.
<ShowItem("keepers_logbook")>
[#log_001] ::Wren Hale:: The last page of the log is gone. Cut, not torn. Someone used a knife. [determined]
[#log_002] ::Tobias Marsh:: Edda cuts out the pages she blots. She's particular like that. [nervous]
@set v.island.clues.logbook = true
@set v.player.clues += 1
[#log_003] ::Wren Hale:: That makes ${v.player.clues} things tonight that don't add up. [neutral]
"""

SCRIPT_WICK = """\
// Clue 2: the lamp's wick, trimmed too short to burn.
<ShowItem("trimmed_wick")>
[#wick_001] ::Wren Hale:: This wick has been cut down to nothing. No lamp burns on that. [shocked]
[#wick_002] ::Tobias Marsh:: They come from the mainland like that, sometimes. [nervous]
[#wick_003] ::Wren Hale:: With fresh knife marks? [determined]
@set v.island.clues.wick = true
@set v.player.clues += 1
@set v.trust.tobias -= 1
"""

SCRIPT_COVE = """\
// Clue 3: Maud saw a lantern in Smugglers' Cove, if she trusts Wren enough to say whose.
<CutTo("post_office")>
[#cove_001] ::Maud Pell:: I saw a lantern down in Smugglers' Cove last night. Swinging, like a signal. [worried]
[#cove_002] ::Wren Hale:: Did you see who held it? [neutral]
@if v.trust.maud >= 2
    [#cove_003] ::Maud Pell:: I saw his coat. Board blue, with the brass buttons. [warm]
    [#cove_005] ::Maud Pell:: Two people on this rock wear that coat, and one of them is missing. [warm]
    @set v.island.clues.coveLantern = true
    @set v.player.clues += 1
@else
    [#cove_004] ::Maud Pell:: Too dark, too far. Come back when I've had a think, love. [worried]
@endif
@set v.trust.maud += 1
"""

SCRIPT_LIGHT_RESTORED = """\
// Ending A: the inspector forces the oil store and finds the keeper alive.
<CutTo("oil_store")>
<PlaySound("door_forced", 1.0)>
[#end_a01] ::Wren Hale:: Miss Vane? Edda! [shocked]
[#end_a02] ::Edda Vane:: Took your time, inspector. Is my lamp lit? [weary]
[#end_a03] ::Tobias Marsh:: They said nobody would drown. They said she'd only run aground. [ashamed]
[#end_a04] ::Edda Vane:: They always say that, lad. [relieved]
@set v.island.keeperFound = true
@set v.island.lampLit = true
@set v.player.accusation = "Tobias Marsh"
<FadeOut(3)>
::Narrator:: The lamp of Gullrock burns again, and the sea remembers where the rocks are.
"""

SCRIPT_DARK_TIDE = """\
// Ending B: too few clues; the inspector leaves on the morning boat.
<CutTo("gullrock_jetty")>
[#end_b01] ::Maud Pell:: Going already? The boat won't wait for questions. [worried]
[#end_b02] ::Wren Hale:: I'll file my report. The Board will send a new keeper. [neutral]
<FadeOut(4)>
::Narrator:: Behind the boat the tower stands dark. Beneath it, in the oil store, someone is still knocking.
"""

# -- Design pages (markdown; {ids} filled in by the builder) -------------------------------------

GDD_OVERVIEW = """\
# The Lighthouse Keeper

*A short mystery for one evening: about twenty minutes, two endings.*

![Gullrock at dusk](storyloom://image/{island_art})

## Pitch

The lamp of Gullrock has been dark for a night and a day, and the *Marigold* lies on the
rocks below it. Its keeper, Edda Vane, has vanished. The player is **Wren Hale**, an inspector
of the Lighthouse Board, landed on the island with one evening to find out who put out the
light before the morning boat takes her back.

## Structure

1. **Arrival**: the jetty, Maud Pell, the storm.
2. **The lamp room**: Tobias Marsh, a cold lamp, a story that almost holds.
3. **The interview**: a dialogue; every question may turn up a clue.
4. **Ending**: two clues or more open the oil store (*The Light Restored*); leaving early
   means *The Dark Tide*.

The cast is described in [Characters](storyloom://document/{characters}); the answer to the
mystery is in [The Solution](storyloom://document/{solution}) (spoilers).

## Tone

Quiet, wet, lamp-lit. Nobody shouts. The sea is always audible.
"""

GDD_CHARACTERS = """\
# Characters

| Who | Role | Wants |
|---|---|---|
| Wren Hale | Inspector, the player | the truth before the morning boat |
| Tobias Marsh | Assistant keeper | his debt to the salvagers gone, and nobody hurt |
| Maud Pell | Postmistress, rows the supplies | Edda back, and to be believed |
| Edda Vane | Keeper of Gullrock for thirty years | her lamp lit |

Expressions used in the scripts: Wren (*neutral, determined, shocked*), Tobias (*nervous,
defensive, ashamed*), Maud (*worried, neutral, warm*), Edda (*weary, relieved*).

Back to the [overview](storyloom://document/{overview}).
"""

GDD_SOLUTION = """\
# The Solution (spoilers)

Tobias owes forty crowns to the salvagers of Porthcurrow. They promised to clear the debt if
the lamp went dark on the night the *Marigold* passed. He trimmed the wick to nothing and
signalled from Smugglers' Cove with a lantern. Edda caught him coming back up the tower; he
locked her in the oil store and cut the last page, which named him, out of the log.

## Clues

- **The logbook**: the last page is cut with a knife (`island.clues.logbook`).
- **The wick**: trimmed too short to burn, with fresh knife marks (`island.clues.wick`).
- **The cove lantern**: Maud saw the Board's blue coat, but only tells when she trusts Wren
  (`trust.maud >= 2`; `island.clues.coveLantern`).

Two clues (`player.clues >= 2`) are enough to force the oil store.
"""

# -- Actors --------------------------------------------------------------------------------------

# (name, alias, bio, editorLanguage, properties, [(expression, RGB of its placeholder image)])
ACTORS: list[tuple[str, str, str, str, str, list[tuple[str, tuple[int, int, int]]]]] = [
    (
        "Wren Hale", "wren",
        "An inspector of the Lighthouse Board, twenty-nine, sent to Gullrock after the Marigold "
        "ran aground. Patient, precise, and seasick on every crossing.",
        "yaml",
        "age: 29\nrole: inspector\nplayable: true\nvoice: alto\ncolor: '#3a6ea5'\n",
        [("neutral", (58, 110, 165)), ("determined", (36, 80, 130)), ("shocked", (150, 180, 220))],
    ),
    (
        "Tobias Marsh", "tobias",
        "Assistant keeper for two years. Good with engines, bad with money; owes forty crowns to "
        "the salvagers of Porthcurrow.",
        "yaml",
        "age: 24\nrole: assistant keeper\nvoice: tenor\nsuspect: true\ncolor: '#6b8e23'\n",
        [("nervous", (107, 142, 35)), ("defensive", (85, 107, 47)), ("ashamed", (60, 75, 40))],
    ),
    (
        "Maud Pell", "maud",
        "Postmistress of Gullrock. Rows the supplies out every Tuesday and knows every light on "
        "the water by its swing.",
        "hjson",
        "age: 61\nrole: postmistress\nvoice: mezzo\nsuspect: false\ncolor: \"#b5651d\"\n",
        [("worried", (181, 101, 29)), ("neutral", (160, 120, 80)), ("warm", (220, 150, 70))],
    ),
    (
        "Edda Vane", "edda",
        "Keeper of the Gullrock light for thirty years. Missing since the noon bell.",
        "hjson",
        "age: 58\nrole: keeper\nvoice: contralto\nmissing: true\ncolor: \"#8b0000\"\n",
        [("weary", (139, 0, 0)), ("relieved", (200, 60, 60))],
    ),
    (
        "Narrator", "narrator",
        "The voice that reads the stage directions aloud; never seen.",
        "json",
        '{"role": "narrator", "voice": "baritone", "onScreen": false}',
        [],
    ),
]

# -- Quests, items, misc -------------------------------------------------------------------------

QUESTS: list[tuple[str, str, str, str, str]] = [
    # (name, editorLanguage, properties, conditions, notes)
    (
        "Find the keeper", "hjson",
        "id: find_keeper\ntitle: Find the keeper\nsummary: Edda Vane has not been seen since the noon bell.\n"
        "reward: {\n  xp: 50\n  item: keepers_key\n}\n",
        "start: v.island.lampRoomVisited\ncomplete: v.island.keeperFound\n",
        "The main thread of the story; completed only in The Light Restored.",
    ),
    (
        "Who put out the light?", "yaml",
        "id: who_put_out_the_light\ntitle: Who put out the light?\nhints:\n  - the logbook\n  - the wick\n"
        "  - the cove\nreward:\n  xp: 100\n",
        "complete: v.player.clues >= 2\n",
        "Each clue found adds one to player.clues.",
    ),
    (
        "Relight the lamp", "hjson",
        "id: relight_the_lamp\ntitle: Relight the lamp\noptional: false\n",
        "complete: v.island.lampLit\n",
        "",
    ),
]

ITEMS: list[tuple[str, str, str, bool]] = [
    # (name, editorLanguage, item text, in the Evidence folder)
    (
        "Keeper's logbook", "yaml",
        "id: keepers_logbook\nweight: 1.5\nclue: logbook\ndescription: Thirty years of weather, "
        "in Edda's small square hand. The last page has been cut out.\n",
        True,
    ),
    (
        "Trimmed wick", "hjson",
        "id: trimmed_wick\nweight: 0.1\nclue: wick\ndescription: A lamp wick cut down to a stub. "
        "The cut is fresh.\n",
        True,
    ),
    (
        "Cove lantern", "hjson",
        "id: cove_lantern\nweight: 2\nclue: coveLantern\ndescription: A storm lantern, still "
        "smelling of oil, wedged between the rocks of Smugglers' Cove.\n",
        True,
    ),
    (
        "Oil lantern", "json",
        '{"id": "oil_lantern", "weight": 2, "lightRadius": 4, "description": "The inspector\'s own lantern."}',
        False,
    ),
]

MISC: list[tuple[str, str, str]] = [
    # (name, editorLanguage, properties)
    (
        "Chapter titles", "json",
        '{"chapters": [{"id": 1, "title": "Arrival"}, {"id": 2, "title": "The Lamp Room"}, '
        '{"id": 3, "title": "The Interview"}], "endings": {"light": "The Light Restored", '
        '"dark": "The Dark Tide"}}',
    ),
    (
        "Voice casting", "yaml",
        "wren: Anna Roe\ntobias: Sam Hallett\nmaud: Bea Kowalski\nedda: Ruth Okafor\nnarrator: Tom Price\n"
        "sessions:\n  - day: 1\n    lines: 24\n  - day: 2\n    lines: 18\n",
    ),
    (
        "Sound cues", "toml",
        '# Sound cues the scripts name in their commands.\n[storm_wind]\nfile = "amb/storm_wind.ogg"\n'
        'volume = 0.6\n\n[door_forced]\nfile = "sfx/door_forced.ogg"\nvolume = 1.0\n',
    ),
]

# -- The map of Gullrock -------------------------------------------------------------------------

# One character per cell, rows top (y = 0) to bottom; "~" (open water) is left out of the cells.
MAP_ROWS = (
    "~~~~~~~~~~~~~~",
    "~~~##...##~~~~",
    "~~#..,,,,.#~~~",
    "~~#.,,L,,,.#~~",
    "~J=..,,,,,o.~~",
    "~~~.,,P,,,..~~",
    "~~~~..,,,.c~~~",
    "~~~~~~...~~~~~",
    "~~~~~~~~~~~~~~",
)

MAP_LEGEND: dict[str, dict[str, object]] = {
    "#": {"type": "rock", "walkable": False},
    ".": {"type": "shingle", "walkable": True},
    ",": {"type": "grass", "walkable": True},
    "=": {"type": "jetty", "walkable": True},
    "J": {"type": "jetty", "walkable": True, "mooring": True},
    "L": {"type": "lighthouse", "walkable": True, "floors": 4},
    "o": {"type": "oil_store", "walkable": True, "dark": True},
    "P": {"type": "post_office", "walkable": True},
    "c": {"type": "cove", "walkable": True, "hidden": True},
}
