"""Every problem code dicebound gives, as a named constant with what it means.

A problem's code is stable: a client tells problems apart by it, so a code is written
once, here, and every module that reports one names its constant. The page
docs/design/problems.md lists them all (tests/ruleset/test_problem_codes.py keeps the two in
step). Imports nothing.
"""

from __future__ import annotations

#: A dice-sum roll-on/roll-down rule whose face every throw reaches, so it would fire on every roll.
ALWAYS_FIRES = "always-fires"

#: Two symbol-pool dice share an id or a label, so a die thrown by name is ambiguous.
AMBIGUOUS_DIE_NAME = "ambiguous-die-name"

#: Two rests a written name cannot tell apart: a label that is another rest's label or id.
AMBIGUOUS_REST_NAME = "ambiguous-rest-name"

#: A catalog's asset is not named after the catalog (`catalogs/ID.json`).
ASSET_PATH = "asset-path"

#: A payment names an amount that is not a whole number of at least 1.
BAD_AMOUNT = "bad-amount"

#: The Capability API version a file is checked at is not a dotted version number.
BAD_CAPABILITY_API = "bad-capability-api"

#: A list row's `_catalog` mark is not `CATALOG/ENTRY`.
BAD_CATALOG_MARK = "bad-catalog-mark"

#: A dice field's value is not dice notation such as 2d6+1.
BAD_DICE = "bad-dice"

#: An id or a map key does not follow its pattern.
BAD_ID = "bad-id"

#: A character's name cannot be part of a URL path, or holds a character a table cannot see.
BAD_NAME = "bad-name"

#: A number JSON cannot hold: too large for a double, or not finite.
BAD_NUMBER = "bad-number"

#: A text with line breaks, control characters, brackets, braces, quotes or half a character.
BAD_TEXT = "bad-text"

#: A face rule's from lies below its min.
BELOW_MIN = "below-min"

#: The proficiency bonus reads a skill or save modifier, which it feeds.
BONUS_READS_CHECK_NUMBER = "bonus-reads-check-number"

#: Outcome bands are read by a measure this kind of resolution does not give.
BY_NOT_FOR_KIND = "by-not-for-kind"

#: A symbol cancels against itself.
CANCELS_ITSELF = "cancels-itself"

#: A skill's or save's cap reads a skill or save modifier.
CAP_READS_CHECK_NUMBER = "cap-reads-check-number"

#: A catalog entry carries a check on a ruleset that is not a dice pool.
CHECK_NEEDS_POOL = "check-needs-pool"

#: A choice band sits on a critical failure, which cannot be chosen away.
CHOICE_ON_CRITICAL = "choice-on-critical"

#: A choice band already succeeds, so there is nothing to choose.
CHOICE_ON_SUCCESS = "choice-on-success"

#: A combat block this kind of ruleset refuses.
COMBAT_NOT_ALLOWED = "combat-not-allowed"

#: A layer names itself among its conflicts.
CONFLICTS_ITSELF = "conflicts-itself"

#: A symbol counts as one that itself counts as another.
COUNTS_CHAIN = "counts-chain"

#: A symbol counts as itself.
COUNTS_ITSELF = "counts-itself"

#: A ladder step's dc no roll of this resolution can meet, or below its least.
DC_OUT_OF_RANGE = "dc-out-of-range"

#: A field's or column's default is not a value it can hold.
DEFAULT_DOES_NOT_FIT = "default-does-not-fit"

#: A derived value reads a derived value declared below it (or itself).
DERIVED_ORDER = "derived-order"

#: A catalog row's value does not fit its list column.
DOES_NOT_FIT = "does-not-fit"

#: A character lists the same condition twice.
DUPLICATE = "duplicate"

#: An override names the same check twice.
DUPLICATE_CHECK = "duplicate-check"

#: An id declared a second time where ids must be unique.
DUPLICATE_ID = "duplicate-id"

#: A key written twice in one JSON object.
DUPLICATE_KEY = "duplicate-key"

#: Two outcome bands sit on the same critical.
DUPLICATE_ON = "duplicate-on"

#: Two spend entries name the same pool.
DUPLICATE_POOL = "duplicate-pool"

#: Two kinds of harm of one wound track share a severity.
DUPLICATE_SEVERITY = "duplicate-severity"

#: A value listed twice where each is listed once.
DUPLICATE_VALUE = "duplicate-value"

#: A clear-box mark on a wound track that fills in order.
EMPTY_MARK = "empty-mark"

#: An override that sets no key.
EMPTY_SET = "empty-set"

#: A track's extra lengthens named levels, and the track has none.
EXTRA_NEEDS_LEVELS = "extra-needs-levels"

#: A face the die does not have.
FACE_NOT_ON_DIE = "face-not-on-die"

#: A critical rule names both faces and pastTarget.
FACES_AND_PAST_TARGET = "faces-and-past-target"

#: A die's face values are not one per face.
FACES_COUNT = "faces-count"

#: A catalog that does not hold rows declares feeds.
FEEDS_NOT_ROWS = "feeds-not-rows"

#: A fraction band's atLeast cannot divide the target.
FRACTION_DIVISOR = "fraction-divisor"

#: Fraction bands on a ruleset that does not roll at most its target.
FRACTION_NEEDS_AT_MOST = "fraction-needs-at-most"

#: A face range whose from is above its to.
FROM_ABOVE_TO = "from-above-to"

#: A pool group shares its name with a pool.
GROUP_IS_POOL = "group-is-pool"

#: An indexed track that does not refuse a mark with no box free.
INDEXED_REFUSES = "indexed-refuses"

#: A pool holds less than the amount to pay.
INSUFFICIENT = "insufficient"

#: A resolution kind this version of dicebound does not build.
KIND_NOT_BUILT = "kind-not-built"

#: A combat key written beside one it excludes, or without the one it goes with.
KEY_CONFLICT = "key-conflict"

#: A track with kinds of harm and neither levels nor boxes to mark them on.
KINDS_NEED_MARKS = "kinds-need-marks"

#: The last band read from the number gives an atLeast, though it catches everything below.
LAST_BAND_AT_LEAST = "last-band-at-least"

#: A track with both levels and boxes.
LEVELS_AND_BOXES = "levels-and-boxes"

#: A track with named levels whose max is not the number of levels.
LEVELS_LENGTH = "levels-length"

#: A rest refills the row pools of a list whose rows are not pools.
LIST_HAS_NO_POOLS = "list-has-no-pools"

#: An override sets a resolution key overrides may not change.
LOCKED_KEY = "locked-key"

#: A roll-down face that is not below the roll-up face.
LOW_NOT_BELOW_HIGH = "low-not-below-high"

#: An entry of creatures or items carries mechanics.
MECHANICS_NOT_ALLOWED = "mechanics-not-allowed"

#: A range whose min is above its max.
MIN_ABOVE_MAX = "min-above-max"

#: A key written in the wrong block.
MISPLACED_KEY = "misplaced-key"

#: A band read from the number, not the last, without atLeast.
MISSING_AT_LEAST = "missing-at-least"

#: A key the object requires is absent.
MISSING_KEY = "missing-key"

#: A rest step that could never change anything: by 0, or a rise on a wound track.
MOVES_NOTHING = "moves-nothing"

#: A character's name in the body differs from the one in the address.
NAME_MISMATCH = "name-mismatch"

#: A shift band beside naturals that are not "none".
NATURALS_NOT_NONE = "naturals-not-none"

#: A proficiency tier multiplies a bonus the resolution does not name.
NEEDS_BONUS = "needs-bonus"

#: A feature above the Capability API version the file is checked at.
NEEDS_CAPABILITY = "needs-capability"

#: Levels, boxes, fill or onFull on a track with no kinds of harm.
NEEDS_KINDS = "needs-kinds"

#: AllowOwnUpgrade on a pool that declares no upgrade.
NEEDS_UPGRADE = "needs-upgrade"

#: An override that could never apply, behind one that always applies first.
NEVER_APPLIES = "never-applies"

#: A rule no check could ever trigger.
NEVER_FIRES = "never-fires"

#: "harder" untrained checks on a pool whose target cannot move.
NEVER_HARDER = "never-harder"

#: A hideWhen value the field can never hold.
NEVER_MATCHES = "never-matches"

#: A symbol pool no check could ever succeed on.
NEVER_SUCCEEDS = "never-succeeds"

#: Outcome bands that all succeed.
NO_FAILURE_BAND = "no-failure-band"

#: Outcome bands that are all on criticals.
NO_NUMBER_BAND = "no-number-band"

#: A rest filters row pools by recharge on a list that declares no rechargeColumn.
NO_RECHARGE_COLUMN = "no-recharge-column"

#: Outcome bands none of which succeeds.
NO_SUCCESS_BAND = "no-success-band"

#: Temporary points on a pool that does not allow them.
NO_TEMP = "no-temp"

#: A step-pool step that is not a die size.
NOT_A_DIE = "not-a-die"

#: A value reference names a field that holds no number.
NOT_A_NUMBER = "not-a-number"

#: A value, default, label or table row for a value the field or state cannot hold.
NOT_A_VALUE = "not-a-value"

#: A value that is not one of the values allowed here.
NOT_ALLOWED = "not-allowed"

#: An enum table or abilityModFromField names a field that is not an enum.
NOT_AN_ENUM = "not-an-enum"

#: A combat key the fight's kind does not take (a pool fight's keys in an attack fight, or the reverse).
NOT_FOR_FIGHT_KIND = "not-for-fight-kind"

#: Values that must rise strictly do not.
NOT_ASCENDING = "not-ascending"

#: A face rule reaches a face that counts as a success.
NOT_BELOW_TARGET = "not-below-target"

#: Outcome bands' atLeast that do not fall from one band to the next.
NOT_DECREASING = "not-decreasing"

#: A catalog row writes into a list its catalog does not feed.
NOT_FED = "not-fed"

#: A key this kind of resolution has no use for.
NOT_FOR_KIND = "not-for-kind"

#: A rest step key its target does not take (recharge, kind, or by on a state).
NOT_FOR_TARGET = "not-for-target"

#: Text that is not JSON (with its line and column).
NOT_JSON = "not-json"

#: A number that must be whole and is not.
NOT_WHOLE = "not-whole"

#: A plain track where a wound track is needed.
NOT_WOUND_TRACK = "not-wound-track"

#: A band on a critical that gives an atLeast.
ON_BAND_AT_LEAST = "on-band-at-least"

#: A band on a critical that says critical is false.
ON_BAND_NOT_CRITICAL = "on-band-not-critical"

#: A band on a critical on a kind whose criticals never move a band.
ON_NOT_FOR_KIND = "on-not-for-kind"

#: A band on a critical whose success contradicts that critical.
ON_SUCCESS_CONTRADICTION = "on-success-contradiction"

#: A value reference (or a block) that names no source or more than one.
ONE_SOURCE = "one-source"

#: A value outside the range it must lie in.
OUT_OF_RANGE = "out-of-range"

#: An entry moves a face past its rule's min or the die's top face.
OUTSIDE_RULE = "outside-rule"

#: A target outside the target's range.
OUTSIDE_TARGET = "outside-target"

#: More successes than one roll can count.
PAST_MAX_SUCCESSES = "past-max-successes"

#: PastTarget on a critical success.
PAST_TARGET_SUCCESS = "past-target-success"

#: A spend, or a fight's health, names a pool that starts empty.
POOL_STARTS_EMPTY = "pool-starts-empty"

#: A pool larger than this kind throws.
POOL_TOO_LARGE = "pool-too-large"

#: "read" on a value reference that is not a liveTrack reference.
READ_NEEDS_TRACK = "read-needs-track"

#: A maximum, bonus or scaled column reads live state, which changes in play.
READS_LIVE = "reads-live"

#: An override takes away a key the resolution does not have.
REMOVES_NOTHING = "removes-nothing"

#: An override takes away a key its kind requires.
REQUIRED_KEY = "required-key"

#: A re-throw up to the die's top face, which would never stop.
REROLLS_EVERY_FACE = "rerolls-every-face"

#: An id reserved for the Engine's own rules.
RESERVED_ID = "reserved-id"

#: An entry moves a face rule that has no min.
RULE_HAS_NO_MIN = "rule-has-no-min"

#: A scaled column with no plain number in the row's values.
SCALED_NEEDS_VALUE = "scaled-needs-value"

#: A row with scaled columns beside another row for the same list.
SCALED_NOT_ALONE = "scaled-not-alone"

#: A scaled column reads a list sum.
SCALED_READS_LIST = "scaled-reads-list"

#: A section named before sheet.sections declares it.
SECTION_ORDER = "section-order"

#: A creature's sequence names an action that is itself a sequence.
SEQUENCE_OF_SEQUENCE = "sequence-of-sequence"

#: A rule that reads a natural face on a roll that throws more than one die.
SINGLE_DIE_ONLY = "single-die-only"

#: A skill in two stances.
SKILL_IN_TWO_STANCES = "skill-in-two-stances"

#: A spend that buys something other than dice where only dice may be bought.
SPEND_DICE_ONLY = "spend-dice-only"

#: A spend on a kind that cannot buy with it.
SPEND_NOT_ALLOWED = "spend-not-allowed"

#: A succeeding band listed after a failing one.
SUCCESS_BELOW_FAILURE = "success-below-failure"

#: A target read or named where the target cannot move.
TARGET_FIXED = "target-fixed"

#: Tens dice on a resolution that is not a single d100.
TENS_NEEDS_D100 = "tens-needs-d100"

#: A proficiency tier skills or saves may not take on this sheet.
TIER_NOT_OFFERED = "tier-not-offered"

#: A character's sheet or live state over its size in bytes.
TOO_BIG = "too-big"

#: Fewer items than the list needs.
TOO_FEW = "too-few"

#: A number above its maximum, or a file over its size.
TOO_LARGE = "too-large"

#: A text longer than its limit.
TOO_LONG = "too-long"

#: More items, entries, boxes or marks than allowed.
TOO_MANY = "too-many"

#: A text shorter than its limit (an empty one).
TOO_SHORT = "too-short"

#: A number below its minimum.
TOO_SMALL = "too-small"

#: A symbol that cancels against two partners.
TWO_PARTNERS = "two-partners"

#: A check in two overrides without when.
TWO_WITHOUT_WHEN = "two-without-when"

#: A character names an ability the ruleset does not declare.
UNKNOWN_ABILITY = "unknown-ability"

#: A character's row names a catalog the ruleset does not declare.
UNKNOWN_CATALOG = "unknown-catalog"

#: A character's row names a column its list does not declare.
UNKNOWN_COLUMN = "unknown-column"

#: A character names a condition the ruleset does not declare.
UNKNOWN_CONDITION = "unknown-condition"

#: A character's row names an entry its catalog does not hold.
UNKNOWN_ENTRY = "unknown-entry"

#: A character names a field the ruleset does not declare.
UNKNOWN_FIELD = "unknown-field"

#: A name the ruleset does not declare where a declared one is needed.
UNKNOWN_ID = "unknown-id"

#: A key the object does not take.
UNKNOWN_KEY = "unknown-key"

#: A kind the ruleset (or the track) does not know.
UNKNOWN_KIND = "unknown-kind"

#: A character names a list the ruleset does not declare.
UNKNOWN_LIST = "unknown-list"

#: A pool the ruleset or the character does not have.
UNKNOWN_POOL = "unknown-pool"

#: A character names a save the ruleset does not declare.
UNKNOWN_SAVE = "unknown-save"

#: A character names a skill (or a save, for a bonus) the ruleset does not declare.
UNKNOWN_SKILL = "unknown-skill"

#: A character names a live state the ruleset does not declare.
UNKNOWN_STATE = "unknown-state"

#: A character names a live text the ruleset does not declare.
UNKNOWN_TEXT = "unknown-text"

#: A character names a proficiency tier the ruleset does not declare.
UNKNOWN_TIER = "unknown-tier"

#: A character names a track the ruleset does not declare.
UNKNOWN_TRACK = "unknown-track"

#: A value that is not one of the field's or state's values.
UNKNOWN_VALUE = "unknown-value"

#: A die that upgrades to itself.
UPGRADE_SAME_DIE = "upgrade-same-die"

#: An override's when that reads a constant, not the sheet.
WHEN_NOT_ON_SHEET = "when-not-on-sheet"

#: A hideWhen on a wound track.
WOUND_TRACK_HIDDEN = "wound-track-hidden"

#: A wound track whose min is not 0.
WOUND_TRACK_MIN = "wound-track-min"

#: A list column of a type the reader cannot use.
WRONG_COLUMN_TYPE = "wrong-column-type"

#: Damage dice of another die than a pool fight throws.
WRONG_DIE = "wrong-die"

#: A catalog entry of another kind than its catalog holds.
WRONG_ENTRY = "wrong-entry"

#: A plain track's number under wounds, or a wound track's marks under tracks.
WRONG_TRACK = "wrong-track"

#: A value of the wrong JSON type.
WRONG_TYPE = "wrong-type"
