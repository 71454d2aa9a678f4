"""elicitkit: typed, spec-valid MCP elicitation for Python MCP servers.

Declare a form as a dataclass, pydantic model, msgspec Struct or TypedDict; elicitkit derives
the strict flat schema each MCP protocol version allows, and turns the client's answer back
into your type, with every problem reported per field.
"""

from elicitkit._asker import Question, ask, ask_all
from elicitkit._errors import (
    ClientDisconnected,
    ElicitationCancelled,
    ElicitationDeclined,
    ElicitationFailed,
    ElicitationTimeout,
    ElicitationUnsupported,
    ElicitError,
    FieldError,
    FormDefinitionError,
    InvalidContent,
)
from elicitkit._fill_missing import fill_missing
from elicitkit._forms import form, parse_content, requested_schema
from elicitkit._limits import ReplayLimits, StateTooLarge, TooManyRounds
from elicitkit._metadata import Email, FormField, Uri
from elicitkit._oneliners import ask_text, choose, confirm
from elicitkit._overrides import Overrides
from elicitkit._protocol import LATEST_PROTOCOL, PROTOCOL_VERSIONS, ProtocolVersion
from elicitkit._result import Action, ElicitResultTyped
from elicitkit._store import Claim, MemoryStore, OutcomeStore
from elicitkit._url_mode import (
    CompletionRouter,
    LocalCompletions,
    ask_url,
    complete_url,
    new_elicitation_id,
    require_url,
    use_completions,
)
from elicitkit.integrations import install

__all__ = [
    "LATEST_PROTOCOL",
    "PROTOCOL_VERSIONS",
    "Action",
    "Claim",
    "ClientDisconnected",
    "CompletionRouter",
    "ElicitError",
    "ElicitResultTyped",
    "ElicitationCancelled",
    "ElicitationDeclined",
    "ElicitationFailed",
    "ElicitationTimeout",
    "ElicitationUnsupported",
    "Email",
    "FieldError",
    "FormDefinitionError",
    "FormField",
    "InvalidContent",
    "LocalCompletions",
    "MemoryStore",
    "OutcomeStore",
    "Overrides",
    "ProtocolVersion",
    "Question",
    "ReplayLimits",
    "StateTooLarge",
    "TooManyRounds",
    "Uri",
    "ask",
    "ask_all",
    "ask_text",
    "ask_url",
    "choose",
    "complete_url",
    "confirm",
    "fill_missing",
    "form",
    "install",
    "new_elicitation_id",
    "parse_content",
    "requested_schema",
    "require_url",
    "use_completions",
]
