"""From a Python function to MCP definitions: JSON Schema from type hints (via pydantic),
descriptions from docstrings, and coercion of the JSON the core validated into the
annotated Python types."""

from __future__ import annotations

import dataclasses
import inspect
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PydanticSchemaGenerationError,
    TypeAdapter,
    ValidationError,
    create_model,
)
from pydantic.fields import FieldInfo
from typing_extensions import NotRequired, TypedDict, is_typeddict

from ._errors import ArgumentsRefused
from ._official import from_official, is_input_required_type, is_official
from .content import Audio, Image
from .context import Context
from .types import CallToolResult, WireModel

Coercer = Callable[[Any], Any]
EMPTY = inspect.Parameter.empty
_JSON_NATIVE: frozenset[Any] = frozenset({str, int, bool, dict, list, object, Any, EMPTY, type(None)})
_CONTENT: tuple[type, ...] = (Image, Audio, WireModel)


@dataclass(frozen=True)
class Parameter:
    """One parameter a client fills in (the context parameter is not one)."""

    name: str
    annotation: Any
    default: Any
    description: str | None

    @property
    def required(self) -> bool:
        """Whether the parameter has no default (a ``Field(...)`` default may give none)."""
        return self.default is EMPTY or (isinstance(self.default, FieldInfo) and self.default.is_required())

    def default_of_field(self) -> Any:
        """The value of a ``Field(...)`` default (its factory's, made now); EMPTY for any
        other default, which the function applies itself."""
        if isinstance(self.default, FieldInfo) and not self.default.is_required():
            return self.default.get_default(call_default_factory=True)
        return EMPTY


@dataclass(frozen=True)
class FunctionSpec:
    """What registration needs to know about a handler function."""

    name: str
    description: str | None
    parameters: tuple[Parameter, ...]
    context_parameter: str | None
    context_type: type[Context]
    """The context class the function annotates (a subclass of :class:`Context` gets one
    of its own kind)."""
    is_async: bool
    return_annotation: Any


def inspect_function(fn: Callable[..., Any]) -> FunctionSpec:
    """Reads a handler's name, docstring, parameters and return annotation."""
    try:
        signature = inspect.signature(fn, eval_str=True)
    except NameError:
        signature = inspect.signature(fn)
    parameters = []
    context_parameter = None
    context_type: type[Context] = Context
    for parameter in signature.parameters.values():
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"{_name_of(fn)}: *args and **kwargs cannot be MCP parameters")
        if _is_context(parameter.annotation):
            context_parameter = parameter.name
            context_type = get_origin(parameter.annotation) or parameter.annotation
            continue
        parameters.append(
            Parameter(
                name=parameter.name,
                annotation=parameter.annotation,
                default=parameter.default,
                description=_field_description(parameter.annotation)
                or (parameter.default.description if isinstance(parameter.default, FieldInfo) else None),
            )
        )
    call = getattr(fn, "__call__", None)  # noqa: B004 - async callable objects count too
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)
    return FunctionSpec(
        name=_name_of(fn),
        # The docstring as written, as the official SDK lists it.
        description=getattr(fn, "__doc__", None),
        parameters=tuple(parameters),
        context_parameter=context_parameter,
        context_type=context_type,
        is_async=is_async,
        return_annotation=_data_returned(signature.return_annotation),
    )


def _data_returned(annotation: Any) -> Any:
    """A return annotation without its ``InputRequiredResult`` arms, which ask for input
    rather than answer (as the official SDK reads ``-> str | InputRequiredResult``); no
    annotation when that is all it names."""
    if is_input_required_type(annotation):
        return EMPTY
    if get_origin(annotation) not in (Union, types.UnionType):
        return annotation
    arms = get_args(annotation)
    data = tuple(arm for arm in arms if not is_input_required_type(arm))
    if len(data) == len(arms):
        return annotation
    if not data:
        return EMPTY
    return data[0] if len(data) == 1 else Union[data]  # noqa: UP007 - arms known at run time only


def input_schema(spec: FunctionSpec) -> dict[str, Any]:
    """The JSON Schema (an object schema) of the parameters, titled ``{function}Arguments``
    as the official SDK titles it."""
    fields: dict[str, Any] = {}
    for parameter in spec.parameters:
        annotation = Any if parameter.annotation is EMPTY else parameter.annotation
        default = ... if parameter.required else parameter.default
        fields[parameter.name] = (annotation, default)
    model: type[BaseModel] = create_model(f"{spec.name}Arguments", **fields)
    return model.model_json_schema()


@dataclass(frozen=True)
class Output:
    """What a tool's return annotation makes of its results."""

    schema: dict[str, Any] | None
    """The output schema; ``None`` for content, and for values of no known shape."""
    wrapped: bool
    """Whether the value goes out as ``{"result": value}``."""
    convert: Coercer | None = None
    """What turns a returned value into what goes out, when it is not sent as it is."""


def output_of(annotation: Any, function: str) -> Output:
    """What `function`'s return annotation makes of its results, as the official SDK makes
    it: an object schema for models, dataclasses, TypedDicts, ``dict[str, …]`` and ordinary
    classes with annotated attributes; anything else wrapped as ``{"result": value}`` (text
    and ``None`` too); schemas titled the model's name, ``{function}DictOutput`` or
    ``{function}Output``. No schema for content returns, functions without a return
    annotation (or ``Any``), and classes without annotations (sent as their text)."""
    if annotation in (EMPTY, Any):
        return Output(None, False)
    if _is_checked_result(annotation):
        # `Annotated[CallToolResult, Model]`: a complete result whose structured content
        # follows `Model`, as in the official SDK.
        model = get_args(annotation)[1]
        return Output(TypeAdapter(model).json_schema(mode="serialization"), False, from_official)
    if is_content(annotation):
        return Output(None, False, from_official if _mentions_official(annotation) else None)
    annotation = readable_by_pydantic(annotation)
    if _is_object_type(annotation):
        if get_origin(annotation) is dict:
            annotation = Annotated[annotation, Field(title=f"{function}DictOutput")]
        return Output(TypeAdapter(annotation).json_schema(mode="serialization"), False)
    try:
        wrapper: type[BaseModel] = create_model(f"{function}Output", result=(annotation, ...))
        return Output(wrapper.model_json_schema(mode="serialization"), True)
    except PydanticSchemaGenerationError:
        if not isinstance(annotation, type):
            raise
    return class_output(annotation, str)


def is_plain_class(annotation: Any) -> bool:
    """Whether ``annotation`` is a class the official SDK makes no wrapped result of: not
    text, a number, a boolean, bytes or None, nor a model, dataclass or TypedDict (a
    ``datetime``, a ``UUID``, an enum, a bare ``list`` or ``dict``, a class of one's own)."""
    return (
        isinstance(annotation, type)
        and annotation not in _WRAPPED_CLASSES
        and annotation not in (EMPTY, object)
        and not _is_object_type(annotation)
        and not is_content(annotation)
    )


def class_output(cls: type, text: Coercer) -> Output:
    """The results of a class's values: an object of its annotated attributes, or, when it
    annotates none, no schema and ``text`` of the value (a list or tuple as its items, a
    dict or set as it is)."""
    model = _attributes_model(cls)
    if model is not None:
        return Output(model.model_json_schema(mode="serialization"), False, _dumped_by(model))
    return Output(None, False, None if issubclass(cls, list | tuple | dict | set | frozenset) else text)


#: What the official SDK wraps as ``{"result": value}`` among classes.
_WRAPPED_CLASSES = (str, int, float, bool, bytes, type(None))


def _attributes_model(cls: type) -> type[BaseModel] | None:
    """A model of an ordinary class's annotated attributes (a default where the class sets
    one); ``None`` when it annotates none."""
    hints = {name: hint for name, hint in typing.get_type_hints(cls).items() if not name.startswith("_")}
    if not hints:
        return None
    fields: dict[str, Any] = {name: (hint, getattr(cls, name, ...)) for name, hint in hints.items()}
    return create_model(cls.__name__, __config__=ConfigDict(from_attributes=True), **fields)


def _dumped_by(model: type[BaseModel]) -> Coercer:
    def dump(value: Any) -> Any:
        return model.model_validate(value).model_dump(mode="json")

    return dump


def readable_by_pydantic(annotation: Any) -> Any:
    """`annotation`, or, for a ``typing.TypedDict`` below Python 3.12 (which pydantic
    refuses), the same keys as a ``typing_extensions.TypedDict``."""
    if sys.version_info >= (3, 12) or not is_typeddict(annotation) or type(annotation).__module__ != "typing":
        return annotation
    hints = typing.get_type_hints(annotation, include_extras=True)
    keys = {name: hint if name in annotation.__required_keys__ else NotRequired[hint] for name, hint in hints.items()}
    make: Any = TypedDict  # the functional form, with a name known only at run time
    rebuilt: Any = make(annotation.__name__, keys)
    rebuilt.__doc__, rebuilt.__module__ = annotation.__doc__, annotation.__module__
    return rebuilt


def json_coercer(annotation: Any) -> Coercer | None:
    """Turns validated JSON into the annotated type; ``None`` when JSON already is it."""
    if not _needs_coercion(annotation):
        return None
    return TypeAdapter(annotation).validate_python


def lax_arguments(fn: Callable[..., Any], spec: FunctionSpec) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """What checks a call's arguments as pydantic's lax mode does, as FastMCP checks them by
    default: each converted to the parameter's type where it can be (``"5"`` for an ``int``
    is 5), the defaults of those left out; a refusal (an argument that does not convert, a
    missing or unknown one) raises :class:`ArgumentsRefused`, the tool's error in pydantic's
    words (``1 validation error for call[name]``). The context parameter is not an
    argument."""
    signature = inspect.signature(fn, eval_str=True)
    parameters = [p for name, p in signature.parameters.items() if name != spec.context_parameter]

    def arguments(**kwargs: Any) -> dict[str, Any]:
        return kwargs

    arguments.__name__ = arguments.__qualname__ = spec.name
    arguments.__signature__ = signature.replace(parameters=parameters, return_annotation=EMPTY)  # type: ignore[attr-defined]
    arguments.__annotations__ = {p.name: p.annotation for p in parameters if p.annotation is not EMPTY}
    # A function's adapter validates a call of it: its value is what the function returns.
    adapter: TypeAdapter[dict[str, Any]] = TypeAdapter(arguments)  # type: ignore[arg-type]

    def checked(given: dict[str, Any]) -> dict[str, Any]:
        try:
            return adapter.validate_python(given)
        except ValidationError as refused:
            raise ArgumentsRefused(refused) from None

    return checked


def string_coercer(annotation: Any) -> Coercer | None:
    """Turns a string (prompt argument, URI template variable) into the annotated type."""
    if annotation in (EMPTY, str, Any, object):
        return None
    adapter: TypeAdapter[Any] = TypeAdapter(annotation)
    if _is_object_type(annotation) or get_origin(annotation) in (list, tuple, set, frozenset):
        return adapter.validate_json
    return adapter.validate_strings


def template_coercer(annotation: Any) -> Coercer | None:
    """Turns a URI template variable into the annotated type; a list's items are the
    values an exploded variable (``{?tags*}``, ``{/path*}``) matched, which the core gives
    joined with ``,``."""
    if not _is_sequence_type(annotation):
        return string_coercer(annotation)
    adapter: TypeAdapter[Any] = TypeAdapter(annotation)
    return lambda text: adapter.validate_python(text.split(","))


def _is_sequence_type(annotation: Any) -> bool:
    """Whether ``annotation`` is a list, tuple or set, optional or annotated."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _is_sequence_type(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        present = [arg for arg in get_args(annotation) if arg is not type(None)]
        return bool(present) and all(_is_sequence_type(arg) for arg in present)
    return origin in (list, tuple, set, frozenset) or annotation in (list, tuple, set, frozenset)


def sent_as_json(annotation: Any) -> bool:
    """Whether the values of ``annotation`` are JSON as Python holds them (text, numbers,
    booleans, None, and lists, tuples and dicts of those), so that a value's text is the
    JSON of its structured content."""
    origin = get_origin(annotation)
    if origin is Literal:
        return True
    if origin is Annotated:
        return sent_as_json(get_args(annotation)[0])
    if origin in (Union, types.UnionType, list, tuple, dict):
        return all(arg is Ellipsis or sent_as_json(arg) for arg in get_args(annotation))
    return annotation in _JSON_VALUES


#: The classes whose values are JSON as they are.
_JSON_VALUES: frozenset[Any] = frozenset({str, int, float, bool, type(None), None, list, tuple, dict})


def _field_description(annotation: Any) -> str | None:
    if get_origin(annotation) is Annotated:
        for extra in get_args(annotation)[1:]:
            if isinstance(extra, FieldInfo) and extra.description:
                return extra.description
    return None


def _needs_coercion(annotation: Any) -> bool:
    if annotation in _JSON_NATIVE:
        return False
    origin = get_origin(annotation)
    if origin is Annotated:
        return _needs_coercion(get_args(annotation)[0])
    if origin is Literal:
        return False
    if origin in (Union, types.UnionType, list, dict):
        return any(_needs_coercion(arg) for arg in get_args(annotation))
    return True


def _is_context(annotation: Any) -> bool:
    """``Context``, or ``Context[State]`` (the type of the state the server's lifespan
    yields)."""
    annotation = get_origin(annotation) or annotation
    return isinstance(annotation, type) and issubclass(annotation, Context)


def _is_object_type(annotation: Any) -> bool:
    if get_origin(annotation) is Annotated:
        return _is_object_type(get_args(annotation)[0])
    if get_origin(annotation) is dict:
        return get_args(annotation)[:1] in ((), (str,))
    if not isinstance(annotation, type):
        return False
    return issubclass(annotation, BaseModel) or dataclasses.is_dataclass(annotation) or is_typeddict(annotation)


def _mentions_official(annotation: Any) -> bool:
    return is_official(annotation) or any(_mentions_official(arg) for arg in get_args(annotation))


def _is_checked_result(annotation: Any) -> bool:
    if get_origin(annotation) is not Annotated:
        return False
    result, *extras = get_args(annotation)
    is_result = result is CallToolResult or (is_official(result) and result.__name__ == "CallToolResult")
    return is_result and bool(extras) and isinstance(extras[0], type) and issubclass(extras[0], BaseModel)


def is_content(annotation: Any) -> bool:
    """Content (not data): the content types and helpers, alone, in lists or in unions."""
    origin = get_origin(annotation)
    if origin in (list, tuple, typing.Sequence):
        args = [arg for arg in get_args(annotation) if arg is not Ellipsis]
        return bool(args) and all(is_content(arg) for arg in args)
    if origin in (Union, types.UnionType):
        return all(is_content(arg) for arg in get_args(annotation))
    if origin is Annotated:
        return is_content(get_args(annotation)[0])
    if is_official(annotation):
        return True
    if not isinstance(annotation, type) or _is_model(annotation):
        return False
    return issubclass(annotation, _CONTENT)


def _is_model(annotation: type) -> bool:
    """A user's pydantic model (structured), as opposed to the wire types (content)."""
    return issubclass(annotation, BaseModel) and not issubclass(annotation, WireModel)


def _name_of(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__
