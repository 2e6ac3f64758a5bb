"""``@frozen``: the frozen, slotted value classes of dicebound, made cheaply at import.

``@dataclass(frozen=True, slots=True)`` compiles six or seven methods from source for
every class when its module is imported (about half a millisecond each class on
Python 3.11), and importing ``dataclasses`` imports ``inspect`` (several milliseconds
more): together most of a cold start across a hundred classes. ``@frozen`` makes the
same kind of class without either:

* ``__init__`` is compiled the first time the class is built (most classes a process
  never builds); it sets each slot through the slot's own descriptor, which is quicker
  than the ``object.__setattr__`` of a frozen dataclass. Defaults, :func:`field` with
  ``default``, ``default_factory``, ``init``, ``repr``, ``compare`` and ``hash``, and
  ``__post_init__`` behave as a dataclass's.
* ``__eq__``, ``__hash__`` and ``__repr__`` are shared functions reading the fields in
  C (``operator.attrgetter``); they compare, hash and show exactly as a dataclass's do
  (the fields' tuple; ``Name(field=value, ...)``).
* Assigning or deleting a field raises :class:`FrozenInstanceError` (an
  ``AttributeError``, as ``dataclasses``' own is); a value pickles through
  ``__getstate__``/``__setstate__`` as a frozen slotted dataclass does.
* :func:`fields` and :func:`replace` do what ``dataclasses``' functions of those names
  do, and ``__match_args__`` is set. A value class is not a ``dataclasses`` dataclass:
  ``dataclasses.fields`` does not know it.

A value class here has no base class (none of dicebound's does); one with a base is
refused rather than made half right.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform

__all__ = [
    "MISSING",
    "Field",
    "FrozenInstanceError",
    "field",
    "fields",
    "frozen",
    "new_tuple",
    "replace",
]

T = TypeVar("T")

new_tuple: Any = tuple.__new__
"""``new_tuple(NamedTupleClass, (every field, in order))``: a named tuple built in C,
without its Python-level ``__new__`` (the values a check's hot path makes every time)."""


class _Missing:
    """No default given (``dataclasses.MISSING``'s part)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """A field of a frozen value was assigned or deleted."""


class Field:
    """One field of a value class: its name, type and what ``field(...)`` said of it."""

    __slots__ = ("compare", "default", "default_factory", "hash", "init", "name", "repr", "type")

    def __init__(
        self,
        default: Any,
        default_factory: Any,
        init: bool,
        repr: bool,
        hash: bool | None,
        compare: bool,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.type: object = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
) -> Any:
    """What a field's default says beyond a plain value, as ``dataclasses.field``."""
    return Field(default, default_factory, init, repr, hash, compare)


def fields(value: object) -> tuple[Field, ...]:
    """The fields of a value class or of one of its values, in order.

    Raises:
        TypeError: it is not a ``@frozen`` class or value.
    """
    cls = value if isinstance(value, type) else type(value)
    known: dict[str, Field] | None = getattr(cls, "__value_fields__", None)
    if known is None:
        raise TypeError(f"{cls.__name__} is not a @frozen value class")
    return tuple(known.values())


def replace(value: T, /, **changes: Any) -> T:
    """A copy of ``value`` with ``changes`` made, built through its constructor (so its
    ``__post_init__`` runs again), as ``dataclasses.replace``.

    Raises:
        TypeError: not a value, or a change names no field. ValueError: a change names
            a field the constructor does not take.
    """
    for f in fields(value):
        if not f.init:
            if f.name in changes:
                raise ValueError(
                    f"field {f.name} is declared with init=False, it cannot be changed"
                )
            continue
        if f.name not in changes:
            changes[f.name] = getattr(value, f.name)
    return type(value)(**changes)


def _is_class_var(annotation: object) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def frozen(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen, slotted value class (see the module's text)."""
    if cls.__bases__ != (object,):
        raise TypeError(f"{cls.__name__}: a @frozen value class has no base class")
    namespace = dict(cls.__dict__)
    spec_of: dict[str, Field] = {}
    for name, annotation in namespace.get("__annotations__", {}).items():
        if _is_class_var(annotation):
            continue
        default = namespace.pop(name, MISSING)
        spec = default if isinstance(default, Field) else field(default=default)
        spec.name = name
        spec.type = annotation
        spec_of[name] = spec
    names = tuple(spec_of)
    _check_order(cls.__name__, spec_of)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    namespace["__slots__"] = names
    namespace["__value_fields__"] = spec_of
    namespace["__match_args__"] = tuple(n for n, f in spec_of.items() if f.init)

    compared = [n for n, f in spec_of.items() if f.compare]
    hashed = [n for n, f in spec_of.items() if (f.compare if f.hash is None else f.hash)]
    shown = [n for n, f in spec_of.items() if f.repr]
    compare_key = _tuple_getter(compared)
    hash_key = _tuple_getter(hashed)
    shown_values = _tuple_getter(shown)
    state = _tuple_getter(list(names))

    def _eq(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return compare_key(self) == compare_key(other)
        return NotImplemented

    def _hash(self: Any) -> int:
        return hash(hash_key(self))

    @recursive_repr("...")
    def _repr(self: Any) -> str:
        parts = ", ".join(f"{n}={v!r}" for n, v in zip(shown, shown_values(self), strict=True))
        return f"{self.__class__.__qualname__}({parts})"

    def _setattr(self: Any, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def _delattr(self: Any, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _getstate(self: Any) -> list[Any]:
        return list(state(self))

    def _setstate(self: Any, values: list[Any]) -> None:
        for name, value in zip(names, values, strict=True):
            object.__setattr__(self, name, value)

    def _init(self: Any, *args: Any, **kwargs: Any) -> None:
        made.__init__ = _init_of(made, spec_of)
        made.__init__(self, *args, **kwargs)

    methods: dict[str, Callable[..., Any]] = {
        "__eq__": _eq,
        "__hash__": _hash,
        "__repr__": _repr,
        "__setattr__": _setattr,
        "__delattr__": _delattr,
        "__getstate__": _getstate,
        "__setstate__": _setstate,
        "__init__": _init,
    }
    for key, fn in methods.items():
        if key in namespace and key != "__hash__":
            raise TypeError(f"{cls.__name__} defines {key}, which @frozen makes")
        fn.__qualname__ = f"{cls.__qualname__}.{key}"
        namespace[key] = fn
    meta: Any = type(cls)
    made: Any = meta(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made  # type: ignore[no-any-return]


def _tuple_getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields' values as a tuple (one field's too), read in C."""
    if not names:
        return lambda _: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda value: (one(value),)
    return attrgetter(*names)


def _check_order(name: str, fields: dict[str, Field]) -> None:
    """A field the constructor takes without a default may not follow one with."""
    defaulted = False
    for field_name, f in fields.items():
        if not f.init:
            continue
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        if defaulted and not has_default:
            raise TypeError(f"{name}: non-default argument {field_name!r} follows default argument")
        defaulted = defaulted or has_default


def _init_of(cls: type, fields: dict[str, Field]) -> Callable[..., None]:
    """Compile the class's ``__init__``: each field's slot set through its descriptor."""
    scope: dict[str, Any] = {"_FACTORY": _FACTORY}
    params: list[str] = []
    body: list[str] = []
    for name, f in fields.items():
        scope[f"_set_{name}"] = cls.__dict__[name].__set__
        if f.default is not MISSING:
            scope[f"_default_{name}"] = f.default
        if f.default_factory is not MISSING:
            scope[f"_factory_{name}"] = f.default_factory
        if f.init:
            if f.default is not MISSING:
                params.append(f"{name}=_default_{name}")
            elif f.default_factory is not MISSING:
                params.append(f"{name}=_FACTORY")
                body.append(f"    if {name} is _FACTORY: {name} = _factory_{name}()")
            else:
                params.append(name)
            body.append(f"    _set_{name}(self, {name})")
        elif f.default is not MISSING:
            body.append(f"    _set_{name}(self, _default_{name})")
        elif f.default_factory is not MISSING:
            body.append(f"    _set_{name}(self, _factory_{name}())")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n"
    if not params:
        source = source.replace("(self, )", "(self)")
    exec(source, scope)  # the source is made of the class's own field names alone
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


class _FactoryMark:
    """Stands for a field's default made by its factory, in a compiled ``__init__``."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _FactoryMark()
