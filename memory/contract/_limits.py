"""The bounds of the memory contract, in one place so tests and validation share them."""

from typing import Final

MAX_FACT_CHARS: Final = 500
MAX_FACTS: Final = 50
MAX_SUMMARY_CHARS: Final = 600
MIN_INSTRUCTIONS_CHARS: Final = 1
MAX_INSTRUCTIONS_CHARS: Final = 20_000
MIN_RECALL_CALLS: Final = 0
MAX_RECALL_CALLS: Final = 100
DEFAULT_RECALL_CALLS: Final = 5
MAX_AGENT_ID_CHARS: Final = 200
MAX_TIME_ZONE_CHARS: Final = 64  # the longest IANA name is 32
MAX_USER_ID_CHARS: Final = 500
MAX_OUTCOME_CHARS: Final = 100
MAX_RUN_ID_CHARS: Final = 200
MAX_CHANNEL_CHARS: Final = 40  # where a call came from: `http`, `crm`, ...
MAX_KEY_NAME_CHARS: Final = 200  # the name of the API key that wrote
MAX_TRANSCRIPT_CHARS: Final = 200_000
MAX_MESSAGES: Final = 2_000
# closed fact versions kept per person (beyond the current facts); older ones are dropped
MAX_HISTORY_VERSIONS: Final = 1_000
