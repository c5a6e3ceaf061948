"""`python -m worker.http`: serve the HTTP API and the operator pages."""

import sys

from worker.http.web import main

if __name__ == "__main__":
    sys.exit(main())
