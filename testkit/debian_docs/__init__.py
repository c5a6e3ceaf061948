"""Questions asked of real documents (Debian's, beside this file; sources and licenses in its
README), for judging document ranking: each with the document that answers it and a phrase the
answering chunk holds. Labels name a phrase, not a chunk's position, so a change of chunking
keeps them true (a phrase that no chunk holds whole is caught by `check_labels`).

The questions are the ordinary kind a caller or an operator asks: whole sentences with their
question words ("what", "how", "which"), written from the documents' text in other words where
natural, as a person would ask without knowing the wording.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent


@dataclass(frozen=True, slots=True)
class Document:
    source: str
    content_type: str

    def body(self) -> bytes:
        return (HERE / self.source).read_bytes()


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    source: str
    phrase: str  # the answering chunk holds it (whitespace folded)

    def answered_by(self, source: str, content: str) -> bool:
        return source == self.source and self.phrase in " ".join(content.split())


PDF = "shared-mime-info-spec.pdf"
HTML = "users-and-groups.html"
MAN = "apt_preferences.5.txt"
LICENSE = "GPL-3.txt"

DOCUMENTS = (
    Document(PDF, "application/pdf"),
    Document(HTML, "text/html"),
    Document(MAN, "text/plain"),
    Document(LICENSE, "text/plain"),
)

# the case of issue 31: a question word found only on the PDF's title page ("What is this spec?")
TITLE_PAGE_CASE = Question(
    "What is the default weight of a glob pattern?", PDF, "The default weight value is 50"
)

QUESTIONS = (
    TITLE_PAGE_CASE,
    Question(
        "What command must an application run after it installs its MIME XML file?",
        PDF,
        "MUST run the update-mime-database command",
    ),
    Question(
        "Should glob patterns be matched case-insensitively?",
        PDF,
        "Applications MUST match globs case-insensitively",
    ),
    Question(
        "Which pattern wins for a file with several extensions like Data.tar.gz?",
        PDF,
        "MUST match the longest sequence of extensions",
    ),
    Question(
        "What string does the binary magic file start with?",
        PDF,
        'The file starts with the magic string "MIME-Magic',
    ),
    Question(
        "Are the numbers in the magic file big-endian or little-endian?",
        PDF,
        "All numbers are big-endian",
    ),
    Question(
        "Can a file's MIME type be read from an extended attribute?",
        PDF,
        "user.mime_type extended attribute",
    ),
    Question(
        "Is every text type a subclass of text/plain?",
        PDF,
        "All text/* types are subclasses of text/plain",
    ),
    Question(
        "How can I guess whether a file is binary or text?",
        PDF,
        "Checking the first 128 bytes of the file for ASCII control characters",
    ),
    Question(
        "Why are globs checked before magic sniffing?",
        PDF,
        "reasons for checking the glob patterns before the magic",
    ),
    Question(
        "What type does a mount point directory get?",
        PDF,
        "An inode/mount-point is a subclass of inode/directory",
    ),
    Question(
        "How does an application register as the handler for a URI scheme?",
        PDF,
        "where foo is the URI scheme in question",
    ),
    Question(
        "Should users edit the MIME database themselves?",
        PDF,
        "Users should never edit the database",
    ),
    Question(
        "Which version of the shared MIME-info specification is this?",
        PDF,
        "This is version 0.21 of the Shared MIME-info Database specification",
    ),
    Question(
        "Which group lets a user read the log files in /var/log?",
        HTML,
        "Members of this group can read many log files in /var/log",
    ),
    Question(
        "Who owns the PostgreSQL databases?",
        HTML,
        "Postgresql databases are owned by this user and group",
    ),
    Question(
        "What can members of the sudo group do?",
        HTML,
        "Members of this group may run any command as any user",
    ),
    Question(
        "Which group gives access to the serial ports and the modem?",
        HTML,
        "Full and direct access to serial ports",
    ),
    Question(
        "As which user does the dbus daemon run?",
        HTML,
        "The dbus daemon ( dbus-daemon-1 ) runs as this user and group",
    ),
    Question(
        "Why is there no operator account on new systems?",
        HTML,
        "the operator user is no longer created by default",
    ),
    Question("Who is allowed to read /etc/shadow?", HTML, "/etc/shadow is readable by this group"),
    Question(
        "How can ordinary users mount USB drives and CDs?",
        HTML,
        "Members of this group can access removable devices in limited ways",
    ),
    Question(
        "What priority does APT give to the version that is already installed?",
        MAN,
        "priority 100 to the version that is already installed",
    ),
    Question(
        "Which pin priority makes APT downgrade a package?",
        MAN,
        "even if this constitutes a downgrade of the package",
    ),
    Question(
        "How do I pin every perl version beginning with 5.32?",
        MAN,
        "Pin: version 5.32*",
    ),
    Question(
        "In what order are the files in preferences.d read?",
        MAN,
        "parsed in alphanumeric ascending order",
    ),
    Question(
        "How can several machines receive the same phased updates?",
        MAN,
        "APT::Machine-ID",
    ),
    Question(
        "How do I pin all the binary packages built from one source package?",
        MAN,
        "Source package pinning can be combined",
    ),
    Question(
        "Where are the downloaded Packages and Release files stored?",
        MAN,
        "are stored in the directory /var/lib/apt/lists",
    ),
    Question(
        "How can a pin match packages of any architecture?",
        MAN,
        "add the :any suffix to the package name",
    ),
    Question(
        "May I charge money for giving someone a copy of the program?",
        LICENSE,
        "You may charge any price or no price for each copy that you convey",
    ),
    Question(
        "What is the corresponding source of a work in object code form?",
        LICENSE,
        'The "Corresponding Source" for a work in object code form means',
    ),
    Question(
        "How long must a written offer for the source code stay valid?",
        LICENSE,
        "valid for at least three years",
    ),
    Question(
        "If I stop violating the license, do I get my rights back?",
        LICENSE,
        "your license from a particular copyright holder is reinstated",
    ),
    Question(
        "Is there any warranty for the program?",
        LICENSE,
        "THERE IS NO WARRANTY FOR THE PROGRAM",
    ),
    Question(
        "What is a user product?",
        LICENSE,
        'A "User Product" is either',
    ),
    Question(
        "What installation information must come with a user product?",
        LICENSE,
        '"Installation Information" for a User Product means',
    ),
    Question(
        "Does each contributor grant a patent license?",
        LICENSE,
        "Each contributor grants you a non-exclusive, worldwide, royalty-free patent license",
    ),
    Question(
        "Can I combine the work with code under the Affero license?",
        LICENSE,
        "Use with the GNU Affero General Public License",
    ),
    Question(
        "How do I apply these terms to a new program of mine?",
        LICENSE,
        "How to Apply These Terms to Your New Programs",
    ),
    Question(
        "What does the license say about laws against circumventing technological measures?",
        LICENSE,
        "Protecting Users' Legal Rights From Anti-Circumvention Law",
    ),
)


def check_labels(chunks: Mapping[str, Iterable[str]]) -> list[Question]:
    """The questions whose phrase no chunk of their document holds whole (should be none)."""
    folded = {source: [" ".join(c.split()) for c in texts] for source, texts in chunks.items()}
    return [q for q in QUESTIONS if not any(q.phrase in c for c in folded.get(q.source, []))]
