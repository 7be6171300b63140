"""Playing a project's scripts and dialogues without the game: the player (a script run line by
line against a variable state), a scene's cast and stage, the live variable state a scenario
starts from, and the session that ties them together for the app's player window.

Qt-free; it reads scripts (``storyloom.script``) and documents (``storyloom.project``)."""
