"""Take the docs' pictures of forms: our servers' forms as the MCP Inspector renders them.

    .venv/bin/python -m docs.pictures.make_pictures                 # all, into docs/images/forms
    .venv/bin/python -m docs.pictures.make_pictures --out DIR NAME  # some, elsewhere

Each picture in `PICTURES` is one form of one of our servers: the MCP Inspector (the web UI
the interop suite drives, from ``.ci/node``) starts the server over stdio on the protocol
version the picture names, headless Chromium (``/usr/bin/chromium``) clicks the tool, types
its arguments and any earlier answers, waits for the form, and saves the Inspector's
elicitation dialog, cropped to it, as ``NAME.png``. No picture is edited by hand: run this
again after a form or the Inspector changes, and commit what it writes. A page shows one
with a line ``<!-- form-picture: NAME -->`` (docs/hooks.py).

The Inspector, Node and Chromium are what ``bash .ci/setup`` installs for the interop suite.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Generator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the hook imports this module for the table only, without Playwright
    from playwright.sync_api import Browser, Locator, Page

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EXAMPLES = ROOT / "examples"
FORMS = ROOT / "docs" / "images" / "forms"
# Runs a server on this checkout's elicitkit, as the interop suite does (the Inspector does
# not pass PYTHONPATH on); _offer.py does the same and offers the server an older version.
THIS_CHECKOUT = ROOT / "tests" / "interop" / "_this_checkout.py"
OFFER = HERE / "_offer.py"
# Serves the `server` of a script that, run itself, shows a scripted user answering instead.
SERVE = HERE / "_serve.py"
# The Inspector's two settings: "legacy" negotiates 2025-11-25 (or what the server answers
# to it), "modern" speaks 2026-07-28.
ERAS = {"2025-06-18": "legacy", "2025-11-25": "legacy", "2026-07-28": "modern"}
# The page's size: wide as the docs' screenshots, tall enough for every form's dialog.
WIDTH, HEIGHT = 1280, 1200

# What to put into a field before the picture: text to type, options to pick in a select or
# multi-select, or True to tick a checkbox. Keys are the fields' labels as the client shows.
Answer = str | tuple[str, ...] | bool


@dataclass(frozen=True)
class Server:
    """A stdio server of ours, and the protocol version its session with the Inspector has."""

    script: Path
    args: tuple[str, ...] = ()
    protocol: str = "2025-11-25"
    # False for a page's example (examples/gallery/, examples/home.py): run, it answers its
    # own form with a scripted user; _serve.py serves the `server` it makes instead.
    serves: bool = True

    def command(self) -> tuple[Path, tuple[str, ...]]:
        """The script the Inspector runs with this interpreter, and its arguments."""
        script, args = (self.script, self.args) if self.serves else (SERVE, (str(self.script),))
        if self.protocol == "2025-06-18":  # the Inspector offers 2025-11-25 at the least
            return OFFER, (self.protocol, str(script), *args)
        return THIS_CHECKOUT, (str(script), *args)


@dataclass(frozen=True)
class Picture:
    """One form, pictured: the tool call that asks it, and what is typed before the shot."""

    name: str  # the file is NAME.png; the era goes in the name where the picture differs
    server: Server
    tool: str
    arguments: Mapping[str, str]  # the tool's arguments, typed into the Inspector's tool form
    asks: str  # the form's message: what the dialog shows when it is this form
    fill: Mapping[str, Answer] = field(default_factory=dict[str, Answer])
    # Questions the call asks first, each answered (message, answers) and submitted.
    before: tuple[tuple[str, Mapping[str, Answer]], ...] = ()
    open_list: str | None = None  # a select whose list of options is left open in the shot


SHIPPING = Server(EXAMPLES / "shipping.py")
CHECKOUT = Server(EXAMPLES / "quote_confirm_pay.py")
DEPLOY = Server(EXAMPLES / "per_call_choices.py")
NEWSLETTER = Server(HERE / "newsletter.py")
NEWSLETTER_2025_06_18 = Server(HERE / "newsletter.py", protocol="2025-06-18")
INTEROP = Server(ROOT / "tests" / "interop" / "server.py")
# The guide's refund app, one server per stage (docs/forms.md, replay.md, steps.md,
# long-work.md); the stages pictured here are the ones whose new question is a form.
TUTORIAL = EXAMPLES / "tutorial"
STAGE_1 = Server(TUTORIAL / "stage1_form.py")
STAGE_2 = Server(TUTORIAL / "stage2_confirm.py")
STAGE_3 = Server(TUTORIAL / "stage3_step.py")
STAGE_4_IN_A_TASK = Server(TUTORIAL / "stage4_task.py", protocol="2026-07-28")
# The forms of the gallery (docs/gallery.md includes these files), and the home page's.
GALLERY = EXAMPLES / "gallery"
CONSENT = Server(GALLERY / "consent.py", serves=False)
CONFIRM_DELETE = Server(GALLERY / "confirm_delete.py", serves=False)
POSTAL_ADDRESS = Server(GALLERY / "address.py", serves=False)
GALLERY_PREFERENCES = Server(GALLERY / "preferences.py", serves=False)
DATE_RANGE = Server(GALLERY / "date_range.py", serves=False)
CHOOSE_RECORD = Server(GALLERY / "choose_record.py", serves=False)
URL_SIGN_IN = Server(GALLERY / "url_sign_in.py", serves=False)
HOME = Server(EXAMPLES / "home.py", serves=False)
ADDRESS = {"Name": "Ada Lovelace", "Street": "1 Main St", "City": "Oslo", "Zip code": "0150"}
TOPICS = ("Product releases", "Tips")
REFUND_ASKS = "Refund for a teapot (paid 40 EUR)"
REFUND: Mapping[str, Answer] = {"Reason": ("damaged",), "Amount (EUR)": "40"}
CONFIRM_ASKS = "Refund 40 EUR for a teapot to your card?"
# Stages 3 and 4 ask for the receipt's address after the refund's form and its confirmation.
REFUND_CONFIRMED: tuple[tuple[str, Mapping[str, Answer]], ...] = (
    (REFUND_ASKS, REFUND),
    (CONFIRM_ASKS, {"Confirm": True}),
)

# fmt: off
PICTURES: tuple[Picture, ...] = (
    Picture("shipping-address", SHIPPING, "ship", {"Item": "a teapot"}, "Where should we ship your order?", fill=ADDRESS),  # noqa: E501
    Picture("confirm-payment", CHECKOUT, "checkout", {"Item": "a teapot", "Quantity": "2"}, "Pay 84 EUR for 2 x a teapot?"),  # noqa: E501
    Picture("preferences", NEWSLETTER, "subscribe", {}, "What would you like to hear about?", fill={"Topics": TOPICS}),  # noqa: E501
    Picture("preferences-2025-06-18", NEWSLETTER_2025_06_18, "subscribe", {}, "What would you like to hear about?", fill={f"Topics: {t}": True for t in TOPICS}),  # noqa: E501
    Picture("per-call-choices", DEPLOY, "deploy", {"Account": "acme", "Service": "orders-db"}, "Deploy orders-db for acme", open_list="Region"),  # noqa: E501
    Picture("url-mode", INTEROP, "open_link", {}, "Sign in at the bank to link your account."),
    Picture("tutorial-stage1-refund-request", STAGE_1, "refund", {"Order Id": "A-17"}, REFUND_ASKS, fill=REFUND),  # noqa: E501
    Picture("tutorial-stage2-confirm", STAGE_2, "refund", {"Order Id": "A-17"}, CONFIRM_ASKS, before=((REFUND_ASKS, REFUND),)),  # noqa: E501
    Picture("tutorial-stage3-receipt", STAGE_3, "refund", {"Order Id": "A-17"}, "Where should we email the receipt?", fill={"Email": "ada@example.com"}, before=REFUND_CONFIRMED),  # noqa: E501
    Picture("tutorial-stage4-receipt-in-task", STAGE_4_IN_A_TASK, "refund", {"Order Id": "A-17"}, "Where should we email the receipt?", fill={"Email": "ada@example.com"}, before=REFUND_CONFIRMED),  # noqa: E501
    Picture("home-address", HOME, "ship", {"Item": "a teapot"}, "Where should we ship a teapot?", fill={"City": "Oslo"}),  # noqa: E501
    Picture("gallery-consent", CONSENT, "start_survey", {}, "May we store your survey answers?", fill={"I agree": True}),  # noqa: E501
    Picture("gallery-confirm-delete", CONFIRM_DELETE, "delete", {"Name": "report.pdf"}, "Delete report.pdf for good?"),  # noqa: E501
    Picture("gallery-address", POSTAL_ADDRESS, "ship", {"Item": "a teapot"}, "Where should we send a teapot?", fill={"Name": "Ada Lovelace", "Street": "1 Main St", "Postcode": "0150", "City": "Oslo", "Country": ("Norway",)}),  # noqa: E501
    Picture("gallery-preferences", GALLERY_PREFERENCES, "subscribe", {}, "What would you like to hear about?", fill={"Topics": ("releases", "security")}),  # noqa: E501
    Picture("gallery-date-range", DATE_RANGE, "book_room", {}, "When will you stay?", fill={"Arrive": "2026-07-08", "Leave": "2026-07-10"}),  # noqa: E501
    Picture("gallery-choose-record", CHOOSE_RECORD, "close_ticket", {"Customer": "ada"}, "Which ticket should I close?", open_list="Ticket"),  # noqa: E501
    Picture("gallery-url-sign-in", URL_SIGN_IN, "connect_calendar", {}, "Sign in to your calendar"),
)
# fmt: on
NAMES = tuple(picture.name for picture in PICTURES)


def make(out: Path, names: Sequence[str] = NAMES) -> list[Path]:
    """Take the pictures named (all by default) into OUT; return their paths in table order.

    One Inspector runs per server, and takes that server's pictures in one browser tab.

    Raises:
        SystemExit: A name is not in the table, or the Inspector or Chromium is missing.
    """
    unknown = sorted(set(names) - set(NAMES))
    if unknown:
        raise SystemExit(
            f"No picture is named {', '.join(unknown)}: the table in {__file__} has "
            f"{', '.join(NAMES)}."
        )
    from tests.interop._inspector import chromium  # noqa: PLC0415 (needs Playwright)

    _check_clients()
    out.mkdir(parents=True, exist_ok=True)
    wanted = [picture for picture in PICTURES if picture.name in names]
    servers = list(dict.fromkeys(picture.server for picture in wanted))
    taken: list[Path] = []
    with chromium() as browser, TemporaryDirectory(prefix="form-pictures-") as work:
        for number, server in enumerate(servers):
            with _tab(browser, server, Path(work) / str(number)) as page:
                taken.extend(
                    _take(page, picture, out / f"{picture.name}.png")
                    for picture in wanted
                    if picture.server == server
                )
    return sorted(taken, key=lambda path: NAMES.index(path.stem))


def _check_clients() -> None:
    from tests.interop._tools import CHROMIUM, INSPECTOR, NODE_BIN  # noqa: PLC0415

    for needed, what in (
        (INSPECTOR, "The MCP Inspector"),
        (NODE_BIN / "node", "Node 22"),
        (CHROMIUM, "Chromium"),
    ):
        if not needed.exists():
            raise SystemExit(f"{what} is not at {needed}. Run bash .ci/setup, which installs it.")


@contextmanager
def _tab(browser: Browser, server: Server, work: Path) -> Generator[Page]:
    """An Inspector running SERVER, and a tab connected to it on the server's protocol."""
    from tests.interop._inspector import TIMEOUT_MS, connect, running_inspector  # noqa: PLC0415
    from tests.interop._tools import INSPECTOR  # noqa: PLC0415

    script, args = server.command()
    with ExitStack() as stack:
        url = stack.enter_context(
            running_inspector(INSPECTOR, ERAS[server.protocol], work, script, *args)
        )
        context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
        stack.callback(context.close)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        shown = connect(page, url)
        if shown != server.protocol:  # a picture says which version it shows: make sure
            raise RuntimeError(
                f"The Inspector connected to {server.script.name} on {shown}, not on "
                f"{server.protocol}: its pictures would be labelled wrong."
            )
        yield page


def _take(page: Page, picture: Picture, path: Path) -> Path:
    """Take PICTURE into PATH, or say which picture could not be taken, and why."""
    try:
        _shoot(page, picture, path)
    except Exception as error:
        raise RuntimeError(
            f"Could not take the picture {picture.name} (tool {picture.tool} of "
            f"{picture.server.script.name} on {picture.server.protocol}): {error}"
        ) from error
    return path


def _shoot(page: Page, picture: Picture, path: Path) -> None:
    """Call the picture's tool, answer the questions before its form, and save the form."""
    from playwright.sync_api import expect  # noqa: PLC0415

    from tests.interop._inspector import tool_button  # noqa: PLC0415

    page.get_by_text("Tools", exact=True).click()
    tool_button(page, picture.tool).click()
    for label, value in picture.arguments.items():
        _box(page.locator("body"), label).fill(value)
    page.get_by_role("button", name="Execute Tool").click()
    for message, answers in picture.before:
        dialog = _dialog(page, message)
        _fill(page, dialog, answers)
        dialog.get_by_role("button", name="Submit").click()
    dialog = _dialog(page, picture.asks)
    _fill(page, dialog, picture.fill)
    if picture.open_list is not None:
        _field(page, dialog, picture.open_list).locator(".mantine-Input-input").click()
        expect(page.get_by_role("listbox")).to_be_visible()
    dialog.screenshot(path=path, animations="disabled")
    if picture.open_list is not None:
        page.keyboard.press("Escape")  # closes the list, and leaves the dialog open
        expect(page.get_by_role("listbox")).to_have_count(0)
    dialog.get_by_role("button", name="Cancel").click()  # the next picture starts afresh
    expect(page.get_by_role("dialog")).to_have_count(0)


def _dialog(page: Page, message: str) -> Locator:
    """The Inspector's elicitation dialog, once it shows the form that asks MESSAGE."""
    from playwright.sync_api import expect  # noqa: PLC0415

    dialog = page.get_by_role("dialog")
    # The Inspector quotes a form's message; a URL request's it shows as it is.
    asked = re.compile(rf"^[“\"]?{re.escape(message)}[”\"]?$")
    expect(dialog.get_by_text(asked)).to_be_visible()
    return dialog


def _fill(page: Page, dialog: Locator, answers: Mapping[str, Answer]) -> None:
    from tests.interop._inspector import pick  # noqa: PLC0415

    for label, value in answers.items():
        if isinstance(value, bool):
            dialog.get_by_role("checkbox", name=label, exact=True).set_checked(value)
        elif isinstance(value, tuple):
            pick(page, dialog, label, *value)
        else:
            _box(dialog, label).fill(value)


def _box(within: Locator, label: str) -> Locator:
    """A text or number input by its label (the Inspector shows integers as spin buttons)."""
    text = within.get_by_role("textbox", name=label, exact=True)
    return text.or_(within.get_by_role("spinbutton", name=label, exact=True)).first


def _field(page: Page, dialog: Locator, label: str) -> Locator:
    return dialog.locator(".mantine-InputWrapper-root").filter(
        has=page.locator("label", has_text=re.compile(rf"^{re.escape(label)}\b"))
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Take the pictures named on the command line (all by default) and say where they went."""
    parser = argparse.ArgumentParser(description="Take the docs' pictures of forms.")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"of {', '.join(NAMES)}")
    parser.add_argument("--out", type=Path, default=FORMS, help="default: %(default)s")
    options = parser.parse_args(argv)
    for path in make(options.out, options.names or NAMES):
        print(f"{path} ({path.stat().st_size // 1024} KB)")  # noqa: T201 (its report)


if __name__ == "__main__":
    if str(ROOT) not in sys.path:  # run by path: `python docs/pictures/make_pictures.py`
        sys.path.insert(0, str(ROOT))
    main()
