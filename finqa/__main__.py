"""`python -m finqa COMMAND ...`: the `finqa` console script without the installed launcher."""

import sys

from finqa.cli import main

sys.exit(main())
