"""`python -m gamespec ...`: the same as the `gamespec` command."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
