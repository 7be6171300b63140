"""The lock rules the server enforces: the ``validate_doc_update`` function of
``_design/storyloom`` (version 2), generated for a project's stale-lock time.

The lock lives in the document (``locked``, ``lockedBy``, ``lockedAt``, ``lockBroken``) because
a validate function sees only the old and new revision of the document being written, the user
(``userCtx``) and the database's security object (``secObj``), never another document. The
rules, for a user ``u`` (server admins included: they are owners, not exempt):

1. **Someone else's lock.** The old revision is locked by ``h`` and ``u`` is not ``h``: the only
   write allowed is a *break*: the new revision is live and unlocked, records
   ``lockBroken.by == u`` and ``lockBroken.holder == h``, and changes nothing else (every field
   equal apart from the lock fields, the ``modified``/``modifiedBy`` stamps and the
   underscore metadata; attachments compared by digest). Edits, deletions, tombstones
   (``supersededBy`` or not), unlocks without a break record and replicated writes on top of the
   locked revision are refused, naming the holder, since when, when members may break it and
   that an owner can break it now.
2. **Who may break.** A project owner (a name or role in ``secObj.admins``, or a server admin)
   at any time. A member only when the lock has been idle longer than the project's stale-lock
   time: idle since the latest of the old revision's ``lockedAt``, ``modified`` and
   ``lastModified`` that can be read (ISO-8601, JavaScript date strings, epoch milliseconds as
   a number or a string of digits), against the server's clock. When none can be read the lock
   is never stale for members (only an owner breaks it): the holder's work is the side to keep
   safe, and an owner is always there to free the document.
3. **Nobody locks in another's name.** A new live revision with ``locked: true`` must carry
   ``lockedBy == u``.

The holder writes freely: edits, unlocks, deletes and conflict-resolution tombstones.

A validate function cannot read the project's settings, so the stale time is written into the
function's text when the rules are generated (:func:`lock_rules_for`); the installed rules are
``outdated`` when they were made for another stale time, and ``storyloom remote setup``
installs them again.
"""

from __future__ import annotations

from typing import Any

LOCK_DESIGN_ID = "_design/storyloom"
#: Raised whenever the rules change: set-up replaces an older version, keeps a newer one.
LOCK_RULES_VERSION = 2
#: The stale-lock time when the project sets none, and its bounds: the same numbers as
#: ``storyloom.project.settings`` (``staleLockMinutes``), which says why 240; the sync layer does
#: not import the project layer, so a test keeps the two in step.
DEFAULT_STALE_LOCK_MINUTES = 240
MIN_STALE_LOCK_MINUTES = 1
MAX_STALE_LOCK_MINUTES = 30 * 24 * 60

# ES5 only (CouchDB 2's SpiderMonkey 1.8.5 runs it too), and no single quotes, so the design
# document fits in a single-quoted shell argument (the admin's curl request). @STALE_MINUTES@
# is replaced by the project's stale-lock time.
_TEMPLATE = """function (newDoc, oldDoc, userCtx, secObj) {
  var STALE_MINUTES = @STALE_MINUTES@;
  var user = (userCtx && typeof userCtx.name === "string") ? userCtx.name : null;
  var roles = (userCtx && Array.isArray(userCtx.roles)) ? userCtx.roles : [];
  function contains(list, item) {
    return Array.isArray(list) && list.indexOf(item) !== -1;
  }
  function isOwner() {
    if (contains(roles, "_admin")) { return true; }
    var admins = (secObj && secObj.admins) || {};
    if (user !== null && contains(admins.names, user)) { return true; }
    for (var i = 0; i < roles.length; i++) {
      if (contains(admins.roles, roles[i])) { return true; }
    }
    return false;
  }
  function holderOf(doc) {
    if (!doc || doc._deleted || doc.locked !== true) { return null; }
    var by = doc.lockedBy;
    return (typeof by === "string" && by !== "" && by !== "nobody") ? by : null;
  }
  function canonical(value) {
    if (value === null || typeof value !== "object") { return JSON.stringify(value); }
    if (Array.isArray(value)) {
      var items = [];
      for (var i = 0; i < value.length; i++) { items.push(canonical(value[i])); }
      return "[" + items.join(",") + "]";
    }
    var keys = Object.keys(value).sort();
    var parts = [];
    for (var j = 0; j < keys.length; j++) {
      if (value[keys[j]] !== undefined) { parts.push(JSON.stringify(keys[j]) + ":" + canonical(value[keys[j]])); }
    }
    return "{" + parts.join(",") + "}";
  }
  var IGNORED = {locked: true, lockedBy: true, lockedAt: true, lockBroken: true, modified: true, modifiedBy: true};
  function sameAttachments(a, b) {
    var olds = a._attachments || {};
    var news = b._attachments || {};
    var name;
    for (name in olds) {
      if (Object.prototype.hasOwnProperty.call(olds, name) && !Object.prototype.hasOwnProperty.call(news, name)) {
        return false;
      }
    }
    for (name in news) {
      if (!Object.prototype.hasOwnProperty.call(news, name)) { continue; }
      if (!Object.prototype.hasOwnProperty.call(olds, name)) { return false; }
      var att = news[name] || {};
      if (att.stub === true && !att.digest && att.data === undefined) { continue; }
      if (att.data !== undefined || !att.digest || att.digest !== olds[name].digest) { return false; }
    }
    return true;
  }
  function ownKeys(doc) {
    var found = [];
    for (var k in doc) { if (Object.prototype.hasOwnProperty.call(doc, k)) { found.push(k); } }
    return found;
  }
  function sameApartFromLock(a, b) {
    // Keys are compared as lists, never as properties of a map, so that fields named like
    // Object.prototype members ("constructor", "__proto__") are compared too.
    var keys = ownKeys(a).concat(ownKeys(b));
    for (var i = 0; i < keys.length; i++) {
      var k = keys[i];
      if (k.charAt(0) === "_" || Object.prototype.hasOwnProperty.call(IGNORED, k)) { continue; }
      var inA = Object.prototype.hasOwnProperty.call(a, k);
      var inB = Object.prototype.hasOwnProperty.call(b, k);
      if (inA !== inB || canonical(a[k]) !== canonical(b[k])) { return false; }
    }
    return sameAttachments(a, b);
  }
  function millis(value) {
    if (typeof value === "number") { return isFinite(value) ? value : null; }
    if (typeof value !== "string" || value === "") { return null; }
    if (/^[0-9]+$/.test(value)) { return Number(value); }
    var parsed = Date.parse(value);
    return isNaN(parsed) ? null : parsed;
  }
  function idleSince(doc) {
    var fields = ["lockedAt", "modified", "lastModified"];
    var latest = null;
    for (var i = 0; i < fields.length; i++) {
      var t = millis(doc[fields[i]]);
      if (t !== null && (latest === null || t > latest)) { latest = t; }
    }
    return latest;
  }
  function iso(ms) {
    var d = new Date(ms);
    return isNaN(d.getTime()) ? String(ms) : d.toISOString();
  }
  function breakable(doc) {
    var since = idleSince(doc);
    if (since === null) {
      return {stale: false, text: "its idle time cannot be read (no readable lockedAt or modified), so members " +
              "cannot break it; a project owner can break it now"};
    }
    var from = since + STALE_MINUTES * 60000;
    var stale = new Date().getTime() > from;
    return {stale: stale, text: "idle since " + iso(since) + (stale ? ", a member may break it now" :
            ", a member may break it from " + iso(from) + " (idle longer than " + STALE_MINUTES + " minutes)") +
            "; a project owner can break it now"};
  }
  function locked(doc, holder) {
    return String(doc._id) + " is locked by " + holder + (doc.lockedAt ? " since " + doc.lockedAt : "");
  }
  var holder = holderOf(oldDoc);
  if (holder !== null && holder !== user) {
    var record = newDoc.lockBroken;
    var isBreak = !newDoc._deleted && newDoc.locked !== true && !!record && typeof record === "object" &&
                  user !== null && record.by === user && record.holder === holder && sameApartFromLock(oldDoc, newDoc);
    var when = breakable(oldDoc);
    if (!isBreak) {
      throw({forbidden: locked(oldDoc, holder) + ": only " + holder + " may change, delete or unlock it; " +
             "others may only break the lock (storyloom unlock --break), changing nothing else. The lock is " +
             when.text});
    }
    if (!when.stale && !isOwner()) {
      throw({forbidden: locked(oldDoc, holder) + " and the lock is not stale: " + when.text +
             " (ask an owner, or " + holder + " to unlock it)"});
    }
  }
  if (!newDoc._deleted && newDoc.locked === true && holderOf(newDoc) !== null && newDoc.lockedBy !== user) {
    throw({forbidden: String(user) + " cannot lock " + String(newDoc._id) + " in the name of " + newDoc.lockedBy +
           ": a lock is taken only by its holder"});
  }
}"""


def check_stale_minutes(value: object) -> int:
    """``value`` as a stale-lock time in minutes; raises :class:`ValueError` saying what is
    wrong when it is not a whole number within the bounds."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"the stale-lock time must be a whole number of minutes, not {value!r}")
    if not MIN_STALE_LOCK_MINUTES <= value <= MAX_STALE_LOCK_MINUTES:
        raise ValueError(f"the stale-lock time must be between {MIN_STALE_LOCK_MINUTES} and "
                         f"{MAX_STALE_LOCK_MINUTES} minutes (30 days), not {value}")
    return value


def lock_rules_for(stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES) -> str:
    """The ``validate_doc_update`` text for a project whose locks go stale after
    ``stale_minutes`` idle minutes."""
    return _TEMPLATE.replace("@STALE_MINUTES@", str(check_stale_minutes(stale_minutes)))


def lock_design_doc(stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES) -> dict[str, Any]:
    """The design document set-up installs (and an admin installs by hand in advanced mode)."""
    return {
        "_id": LOCK_DESIGN_ID,
        "language": "javascript",
        "version": LOCK_RULES_VERSION,
        "staleLockMinutes": stale_minutes,
        "comment": "Storyloom lock rules: nobody changes, deletes or unlocks a document another user holds; "
        "owners may break any lock, members only a lock idle longer than staleLockMinutes; nobody locks a "
        "document in the name of someone else.",
        "validate_doc_update": lock_rules_for(stale_minutes),
    }


#: The rules for the default stale time (kept for callers that know no project).
VALIDATE_DOC_UPDATE = lock_rules_for(DEFAULT_STALE_LOCK_MINUTES)
LOCK_DESIGN_DOC: dict[str, Any] = lock_design_doc(DEFAULT_STALE_LOCK_MINUTES)


def lock_rules_state(doc: dict[str, Any] | None, stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES) -> str:
    """``missing``, ``current``, ``outdated`` (an older version, the same version edited, or made
    for another stale time than ``stale_minutes``) or ``newer`` (installed by a newer Storyloom:
    left alone)."""
    if doc is None or doc.get("_deleted"):
        return "missing"
    version = doc.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > LOCK_RULES_VERSION:
        return "newer"
    if version == LOCK_RULES_VERSION and doc.get("validate_doc_update") == lock_rules_for(stale_minutes):
        return "current"
    return "outdated"


def installed_stale_minutes(doc: dict[str, Any] | None) -> int | None:
    """The stale time the installed rules were made for (``None``: unknown, or older rules)."""
    value = (doc or {}).get("staleLockMinutes")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


__all__ = [
    "DEFAULT_STALE_LOCK_MINUTES",
    "LOCK_DESIGN_DOC",
    "LOCK_DESIGN_ID",
    "LOCK_RULES_VERSION",
    "MAX_STALE_LOCK_MINUTES",
    "MIN_STALE_LOCK_MINUTES",
    "VALIDATE_DOC_UPDATE",
    "check_stale_minutes",
    "installed_stale_minutes",
    "lock_design_doc",
    "lock_rules_for",
    "lock_rules_state",
]
