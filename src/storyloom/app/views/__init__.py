"""Qt-free view models of the app's screens: what each window shows and how the fields a person
types are checked, in the app's words. The widgets in ``storyloom.gui`` draw them; the session
core (``storyloom.app``) never imports them."""
